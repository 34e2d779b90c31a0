import { displayState, workflowState } from "../operations/states.js";
import type { ActionItemRow } from "../store/actions/read.js";
import type { ContextRow, DefinitionRow, InstanceRow } from "../store/workflows/read.js";
import type { Parameter } from "../store/workflows/write.js";
import { XmlWriter } from "./writer.js";

/**
 * Workflow API documents, in the namespace `http://workflow.preservica.com` (default, unprefixed).
 * Clients read them with `.//{WF}Name` searches, which find the FIRST matching descendant: so in an
 * instance `Id` comes first and no nested element reuses the names Id, State, DisplayState, … before
 * the instance's own; in a context, `Id` and `Name` come first.
 */

export const WF_NS = "http://workflow.preservica.com";

function open(root: string): XmlWriter {
  return new XmlWriter().open(root, { xmlns: WF_NS });
}

/** What one instance shows; the route decides what the caller may see. */
export interface InstanceView {
  row: InstanceRow;
  /** The entity the action is about; the title only when the caller may read it. */
  entity?: { ref: string; type: string | null; title?: string };
  /** Failed items (includeErrors=true). */
  errors?: ActionItemRow[];
  /** Input and output parameter values (administrators who asked). */
  parameters?: { input: Parameter[]; output: Parameter[] };
}

function percent(r: InstanceRow): number {
  if (r.completed) return 100;
  if (r.total <= 0) return 0;
  return Math.min(99, Math.floor(((r.done + r.failed) * 100) / r.total));
}

function writeParameters(w: XmlWriter, name: string, params: Parameter[]): void {
  w.open(name);
  for (const p of params) w.open("Parameter").leaf("Key", p.key).leaf("Value", p.value).close("Parameter");
  w.close(name);
}

/** Attributes of a root element: the namespace; nested elements inherit it. */
type RootAttrs = { xmlns: string } | undefined;
const ROOT = { xmlns: WF_NS };

/**
 * Dates are `Started` / `Finished` in lists, but `StartDate` / `FinishDate` in the single-instance
 * document: pyPreservica 3.4.4's workflow_instance() crashes on any `{WF}Started` or `{WF}Finished`
 * there (its workflowAPI module's `datetime` is the class, not the module, after a star import, so
 * `datetime.datetime.strptime` raises AttributeError), while its list reader parses them fine. Both
 * are optional on the wire, so the single document carries the dates under names it does not look for.
 */
function writeInstance(w: XmlWriter, v: InstanceView, root?: RootAttrs, single = false): void {
  const r = v.row;
  w.open("WorkflowInstance", root)
    .leaf("Id", r.seq)
    .leaf(single ? "StartDate" : "Started", r.created)
    .opt(single ? "FinishDate" : "Finished", r.completed)
    .leaf("State", workflowState(r.status))
    .leaf("DisplayState", displayState(r.status, r.kind))
    .leaf("ArchivalProcessId", r.id)
    .leaf("WorkflowGroupId", r.correlation_id ?? r.id)
    .leaf("WorkflowContextId", r.context_id)
    .leaf("WorkflowContextName", r.context_name)
    .leaf("WorkflowDefinitionTextId", r.definition_text_id)
    .leaf("Type", r.workflow_type)
    .leaf("Creator", r.username)
    .opt("CorrelationId", r.correlation_id)
    .leaf("ProgressToken", r.id)
    .leaf("LastUpdated", r.updated);
  if (v.entity) {
    w.leaf("Entity", v.entity.title ?? "", { ref: v.entity.ref, type: v.entity.type ?? undefined });
  }
  w.open("Progress")
    .leaf("Total", r.total)
    .leaf("Done", r.done)
    .leaf("Failed", r.failed)
    .leaf("PercentComplete", percent(r))
    .close("Progress")
    .opt("Message", r.message);
  if (v.errors) {
    w.open("Errors");
    for (const e of v.errors)
      w.leaf("Error", e.message ?? "failed", { entityRef: e.entity_ref, item: e.seq });
    w.close("Errors");
  }
  if (v.parameters) {
    writeParameters(w, "InputParameters", v.parameters.input);
    writeParameters(w, "OutputParameters", v.parameters.output);
  }
  w.close("WorkflowInstance");
}

export function instanceDocument(v: InstanceView): string {
  const w = new XmlWriter();
  writeInstance(w, v, ROOT, true);
  return w.toString();
}

/** A page of instances: TotalCount (all that match), Count (on this page), the instances. */
export function instancesDocument(views: InstanceView[], total: number, start: number): string {
  const w = open("WorkflowInstances")
    .leaf("TotalCount", total)
    .leaf("Count", views.length)
    .leaf("Start", start);
  for (const v of views) writeInstance(w, v);
  return w.close("WorkflowInstances").toString();
}

/** The outcome of terminate / stop / resume: each instance asked for, its state now, and what happened. */
export function instanceChangesDocument(
  root: string,
  results: { row: InstanceRow; changed: boolean; note: string }[],
): string {
  const w = open(root);
  for (const r of results) {
    w.open("WorkflowInstanceChange")
      .leaf("WorkflowInstanceId", r.row.seq)
      .leaf("WorkflowState", workflowState(r.row.status))
      .leaf("Changed", r.changed)
      .leaf("Note", r.note)
      .close("WorkflowInstanceChange");
  }
  return w.close(root).toString();
}

function writeContext(w: XmlWriter, c: ContextRow, params?: Record<string, string>, root?: RootAttrs): void {
  w.open("WorkflowContext", root)
    .leaf("Id", c.id)
    .leaf("Name", c.name)
    .leaf("Description", c.description)
    .leaf("WorkflowDefinitionId", c.definition_id)
    .leaf("WorkflowDefinitionTextId", c.definition_text_id)
    .leaf("Type", c.type)
    .leaf("Startable", c.definition_kind !== null && c.start_hint === null)
    .opt("StartedBy", c.start_hint);
  if (params && Object.keys(params).length > 0) {
    writeParameters(
      w,
      "DefaultParameters",
      Object.entries(params).map(([key, value]) => ({ key, value })),
    );
  }
  w.close("WorkflowContext");
}

export function contextsDocument(rows: ContextRow[]): string {
  const w = open("WorkflowContexts");
  for (const c of rows) writeContext(w, c);
  return w.close("WorkflowContexts").toString();
}

export function contextDocument(c: ContextRow): string {
  const w = new XmlWriter();
  writeContext(w, c, JSON.parse(c.parameters) as Record<string, string>, ROOT);
  return w.toString();
}

function writeDefinition(w: XmlWriter, d: DefinitionRow, root?: RootAttrs): void {
  w.open("WorkflowDefinition", root)
    .leaf("Id", d.id)
    .leaf("TextId", d.text_id)
    .leaf("Name", d.name)
    .leaf("Description", d.description)
    .leaf("Type", d.type)
    .leaf("BuiltIn", d.document === null)
    .leaf("Runnable", d.action_kind !== null)
    .leaf("Created", d.created)
    .leaf("CreatedBy", d.created_by)
    .close("WorkflowDefinition");
}

export function definitionsDocument(rows: DefinitionRow[]): string {
  const w = open("WorkflowDefinitions");
  for (const d of rows) writeDefinition(w, d);
  return w.close("WorkflowDefinitions").toString();
}

export function definitionDocument(d: DefinitionRow): string {
  const w = new XmlWriter();
  writeDefinition(w, d, ROOT);
  return w.toString();
}

/** A deletion awaiting approval, as a human task. */
export interface HumanTaskView {
  row: InstanceRow;
  entity: { ref: string; type: string | null; title?: string };
  /** The requester's comment. */
  comment: string;
  /** How many entities the deletion takes (the entity and everything under it). */
  scope: number;
}

function writeTask(w: XmlWriter, t: HumanTaskView, root?: RootAttrs): void {
  const what = t.entity.title ? `"${t.entity.title}" (${t.entity.ref})` : t.entity.ref;
  w.open("HumanTask", root)
    .leaf("Id", t.row.seq)
    .leaf("Name", "Approve deletion")
    .leaf(
      "Description",
      `Delete ${what}${t.scope > 1 ? ` and the ${t.scope - 1} entities under it` : ""} to the recycle bin, asked by ${t.row.username}${t.comment ? `: ${t.comment}` : ""}`,
    )
    .leaf("WorkflowInstanceId", t.row.seq)
    .leaf("WorkflowContextName", t.row.context_name)
    .leaf("Creator", t.row.username)
    .leaf("Created", t.row.created)
    .leaf("Status", "Pending")
    .leaf("Entity", t.entity.title ?? "", { ref: t.entity.ref, type: t.entity.type ?? undefined })
    .open("Outcomes")
    .leaf("Outcome", "approve")
    .leaf("Outcome", "reject")
    .close("Outcomes")
    .leaf("ProgressToken", t.row.id)
    .close("HumanTask");
}

export function humanTasksDocument(tasks: HumanTaskView[], total: number): string {
  const w = open("HumanTasks").leaf("TotalCount", total).leaf("Count", tasks.length);
  for (const t of tasks) writeTask(w, t);
  return w.close("HumanTasks").toString();
}

export function humanTaskDocument(t: HumanTaskView): string {
  const w = new XmlWriter();
  writeTask(w, t, ROOT);
  return w.toString();
}
