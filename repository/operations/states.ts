import type { ActionStatus } from "../store/actions/read.js";

/**
 * How an action's status reads in the operations APIs: the workflow instance state (Workflow API),
 * the monitor status and category (Process Monitor API), and the status of a message. Every mapping
 * is one table, used both to render and (inverted) to filter, so the two cannot disagree.
 */

/** Workflow instance states, as clients' enums name them. */
export const WORKFLOW_STATES = [
  "Aborted",
  "Active",
  "Completed",
  "Finished_Mixed_Outcome",
  "Pending",
  "Suspended",
  "Unknown",
  "Failed",
] as const;
export type WorkflowState = (typeof WORKFLOW_STATES)[number];

/** Workflow types (a definition's type; contexts and instances take their definition's). */
export const WORKFLOW_TYPES = ["Ingest", "Access", "Transformation", "DataManagement"] as const;
export type WorkflowType = (typeof WORKFLOW_TYPES)[number];

const STATE_OF: Record<ActionStatus, WorkflowState> = {
  ACTIVE: "Active",
  PENDING: "Pending",
  COMPLETED: "Completed",
  FAILED: "Failed",
  FINISHED_MIXED_OUTCOME: "Finished_Mixed_Outcome",
  CANCELLED: "Aborted",
  ABORTED: "Aborted",
  SUSPENDED: "Suspended",
};

export function workflowState(status: string): WorkflowState {
  return STATE_OF[status as ActionStatus] ?? "Unknown";
}

/** The action statuses a workflow state stands for (none for Unknown: every stored status maps to a state). */
export function statusesOfState(state: WorkflowState): ActionStatus[] {
  return (Object.keys(STATE_OF) as ActionStatus[]).filter((s) => STATE_OF[s] === state);
}

/** The state as a person reads it; a deletion awaiting approval says so. */
export function displayState(status: string, kind: string): string {
  const state = workflowState(status);
  if (state === "Pending" && kind === "deletion") return "Pending (awaiting a manager's approval)";
  if (state === "Finished_Mixed_Outcome") return "Finished (mixed outcome)";
  if (status === "CANCELLED") return "Aborted (cancelled)";
  return state;
}

/** Process monitor statuses. */
export const MONITOR_STATUSES = [
  "Pending",
  "Running",
  "Succeeded",
  "Failed",
  "Suspended",
  "Recoverable",
] as const;
export type MonitorStatus = (typeof MONITOR_STATUSES)[number];

/**
 * Monitor status of an action. An action that ended with some items failed (mixed outcome) is Failed:
 * administrators look for problems under Failed, and the monitor's counts tell how many succeeded.
 * Cancelled and aborted actions are "abandoned": the monitor list leaves them out (the real service lists
 * "non-abandoned" monitors) unless asked; shown one by one they read as Failed. Nothing here is
 * Recoverable: no process of this service can be retried in place (a person starts it again).
 */
const MONITOR_STATUS_OF: Record<ActionStatus, MonitorStatus> = {
  ACTIVE: "Running",
  PENDING: "Pending",
  COMPLETED: "Succeeded",
  FAILED: "Failed",
  FINISHED_MIXED_OUTCOME: "Failed",
  CANCELLED: "Failed",
  ABORTED: "Failed",
  SUSPENDED: "Suspended",
};

export const ABANDONED_STATUSES: readonly ActionStatus[] = ["CANCELLED", "ABORTED"];

export function monitorStatus(status: string): MonitorStatus {
  return MONITOR_STATUS_OF[status as ActionStatus] ?? "Failed";
}

export function statusesOfMonitorStatus(ms: MonitorStatus): ActionStatus[] {
  return (Object.keys(MONITOR_STATUS_OF) as ActionStatus[]).filter((s) => MONITOR_STATUS_OF[s] === ms);
}

/** Process monitor categories. Automated = started by the service itself (user `system`), not a person. */
export const MONITOR_CATEGORIES = ["Ingest", "Export", "DataManagement", "Automated"] as const;
export type MonitorCategory = (typeof MONITOR_CATEGORIES)[number];

/** The user name under which the service records what it starts by itself. */
export const SYSTEM_USER = "system";

/** Message statuses: an item's outcome as the monitor shows it. */
export const MESSAGE_STATUSES = ["Info", "Warning", "Error"] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

export const MESSAGE_STATUS_OF_OUTCOME = { done: "Info", skipped: "Warning", failed: "Error" } as const;

export function outcomeOfMessageStatus(s: MessageStatus): "done" | "skipped" | "failed" {
  return s === "Info" ? "done" : s === "Warning" ? "skipped" : "failed";
}

/**
 * The status of an action's own message (shown after its items): Error when it failed, Warning when it
 * ended with some items failed, was aborted or stopped, Info otherwise (completed, running, pending).
 */
export function closingMessageStatus(status: string): MessageStatus {
  if (status === "FAILED") return "Error";
  if (["FINISHED_MIXED_OUTCOME", "CANCELLED", "ABORTED", "SUSPENDED"].includes(status)) return "Warning";
  return "Info";
}
