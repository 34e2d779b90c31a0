import type {
  CallToolResult,
  InputRequiredResult,
  McpServer,
  ServerContext,
} from "@modelcontextprotocol/server";
import { isServiceError } from "../api/errors.js";
import type { ServiceClient } from "../api/index.js";
import { type AuditOutcome, digestArgs } from "../guards/audit.js";
import { type Decision, planText } from "../guards/confirm.js";
import { changesRepository } from "../guards/visibility.js";
import { ChallengeRequired, SignInFailed, SignInRequired } from "../session/session.js";
import {
  askForSignInCode,
  clientCanElicit,
  completeSignInFromAnswer,
  hasSignInAnswer,
} from "../session/sign-in.js";
import type { ToolContext } from "../tools/context.js";
import type { AnyTool, AuditFacts, ConfirmPlan, TargetRef, ToolAnswer } from "../tools/define.js";
import { CallContext, type SharedContext, sharedContext } from "./call-context.js";
import { type Deadline, startDeadline } from "./deadline.js";
import { classify, ToolDeadlineExceeded, toUserMessage } from "./errors.js";
import type { ServerRuntime } from "./runtime.js";

/**
 * The one boundary every tool call passes, in named steps:
 *
 *   admit    a sign-in code the person just gave is used; in person mode, nobody runs a tool unsigned
 *   start    one overall deadline and the handler's context
 *   confirm  (destructive tools only) preview, ask the person, refuse, or go ahead holding the targets' lease
 *   run      the handler, within the deadline
 *   audit    (writes only) the one entry that says what changed
 *   answer   text, resource links, structured content
 *   fail     any thrown error: classified, logged, told to the client, audited for writes, answered in words
 *
 * A read-only tool's call does only admit, start, run and answer: no confirmation, no audit, no shared state.
 */

export type ToolCallResult = CallToolResult | InputRequiredResult;

/** What every call of one registered tool shares: made once per server instance and tool, not per call. */
interface Boundary {
  server: McpServer;
  tool: AnyTool;
  runtime: ServerRuntime;
  api: ServiceClient;
  /** The tool may change the repository: fail closed without the shared state, audit what it did. */
  writes: boolean;
  /** After a sign-in completes: re-reads the roles and re-syncs every live tool list. */
  signedIn: () => Promise<void>;
  /** What every call's handler context shares. */
  shared: SharedContext;
  /** The overall deadline of each call; null for transfers of whole files. */
  deadlineMs: number | null;
}

/** One call in flight: what the steps hand each other. */
interface Call {
  readonly b: Boundary;
  readonly mcp: ServerContext;
  readonly deadline: Deadline;
  readonly ctx: ToolContext;
  /** The arguments the handler runs with: the confirmation stripped once a confirmed call goes ahead. */
  args: Record<string, unknown>;
  plan?: ConfirmPlan;
  /** A confirmed call's lease on its targets: held through the write, released whatever happens. */
  release?: () => Promise<void>;
}

/** The handler the SDK calls for `tool` on one server instance (`on`: the instance and its service client). */
export function toolCallHandler(
  tool: AnyTool,
  on: { server: McpServer; api: ServiceClient },
  runtime: ServerRuntime,
  signedIn: () => Promise<void>,
): (rawArgs: Record<string, unknown>, mcp: ServerContext) => Promise<ToolCallResult> {
  const b: Boundary = {
    server: on.server,
    tool,
    runtime,
    api: on.api,
    writes: changesRepository(tool),
    signedIn,
    shared: sharedContext(tool.name, runtime, on.api, signedIn),
    deadlineMs: tool.transfersFiles ? null : runtime.config.toolTimeoutSecs * 1000,
  };
  return (rawArgs, mcp) =>
    // Nearly every call has no sign-in code to use and no person to check: it goes straight to the tool.
    hasSignInAnswer(mcp) || (runtime.person && !tool.withoutSession)
      ? admitThenCall(b, rawArgs, mcp)
      : callTool(b, rawArgs, mcp);
}

async function admitThenCall(
  b: Boundary,
  rawArgs: Record<string, unknown>,
  mcp: ServerContext,
): Promise<ToolCallResult> {
  const turnedAway = await admit(b, mcp);
  return turnedAway ?? callTool(b, rawArgs, mcp);
}

async function callTool(
  b: Boundary,
  rawArgs: Record<string, unknown>,
  mcp: ServerContext,
): Promise<ToolCallResult> {
  const call = start(b, rawArgs, mcp);
  // Only when someone reads it: the time is for the debug log.
  const started = b.runtime.log.isLevelEnabled("debug") ? performance.now() : undefined;
  try {
    if (b.tool.confirm) {
      const instead = await confirm(call);
      if (instead) return instead;
    }
    const answer = await run(call);
    ran(call, started);
    const text = answer.text ?? JSON.stringify(answer.structured);
    return answerWith(b.writes && !answer.onlyRead ? await audit(call, answer, text) : text, answer);
  } catch (thrown) {
    return await fail(call, thrown);
  } finally {
    // Only a confirmed call holds a lease: no turn spent awaiting nothing for every other call.
    if (call.release) await call.release();
    call.deadline.dispose();
  }
}

/** Before anything runs: a sign-in code from the person completes the sign-in; person mode asks who it is. */
async function admit(b: Boundary, mcp: ServerContext): Promise<ToolCallResult | undefined> {
  const { runtime } = b;
  const signIn = await completeSignInFromAnswer(mcp, runtime.session, b.signedIn);
  if (signIn) return signIn;
  // Person mode: nothing runs until the caller is signed in as themselves (sent to the sign-in page).
  if (runtime.person && !b.tool.withoutSession) {
    const waitMs = Math.min(120_000, Math.max(1000, runtime.config.toolTimeoutSecs * 1000 - 2000));
    return runtime.person.check(b.server, mcp, runtime.session, b.tool.name, waitMs);
  }
  return undefined;
}

/**
 * One overall deadline per call: it aborts the signal every request takes, and stops waiting for whatever does
 * not take it, so a stalled service cannot hold the call past the client's own limit. Transfers of whole files
 * are exempt: they report progress instead, and stop when the client cancels.
 */
function start(b: Boundary, rawArgs: Record<string, unknown>, mcp: ServerContext): Call {
  const deadline = startDeadline(b.deadlineMs, mcp.mcpReq.signal);
  return { b, mcp, deadline, ctx: new CallContext(b.shared, deadline.signal, mcp), args: rawArgs };
}

/**
 * A destructive tool's call: a preview (nothing changed), the person asked, a refusal (audited), or the go-ahead
 * with the confirmed arguments and the targets' lease. Returns the answer to give instead of running.
 */
async function confirm(call: Call): Promise<ToolCallResult | undefined> {
  const { server, tool, runtime } = call.b;
  const decision: Decision = await call.deadline.run(
    runtime.confirm.decide(tool, call.args, {
      ctx: call.ctx,
      mcp: call.mcp,
      canAsk: clientCanElicit(server),
      user: runtime.session.username,
    }),
  );
  switch (decision.kind) {
    case "ask":
      return decision.result;
    case "preview":
      return previewAnswer(tool, decision);
    case "refused":
      await record(call, decision.outcome, targetsOf(decision.plan), { message: decision.message });
      return { isError: true, content: [{ type: "text", text: decision.message }] };
    case "run":
      call.args = decision.args;
      call.plan = decision.plan;
      call.release = decision.release;
      return undefined;
  }
}

/** The handler, within the deadline. A write goes ahead only while the shared state answers (fail closed). */
function run(call: Call): Promise<ToolAnswer<unknown>> {
  const { tool, runtime, writes } = call.b;
  const handle = () => call.deadline.run(tool.handler(call.args, call.ctx));
  // A confirmed write holds its lease, which the shared state granted just now.
  if (writes && !call.release) return runtime.state.ping().then(handle);
  // Not an async function: the handler's answer as the deadline hands it on, with no step of our own between.
  return handle();
}

/** After the handler answered: a sign-in that completed late shows its tools; the debug log's line. */
function ran(call: Call, started: number | undefined): void {
  const { tool, runtime } = call.b;
  // Signed in late (start-up could not): from now on, server instances show role-gated tools.
  if (runtime.audience.roles === undefined && runtime.session.state.kind === "active") {
    void call.b.signedIn().catch(() => {});
  }
  if (started !== undefined) {
    runtime.log.debug({ tool: tool.name, ms: Math.round(performance.now() - started) }, "tool call");
  }
}

/**
 * A write that changed something: its audit entry, and a notice for clients that show a log. Returns the
 * answer's text, which names the entry when the change can be undone from it.
 */
async function audit(call: Call, answer: ToolAnswer<unknown>, text: string): Promise<string> {
  const facts = answer.audit;
  const outcome = facts?.job && !facts.jobFinished ? "started" : "done";
  const targets = facts?.targets ?? targetsOf(call.plan);
  const entry = await record(call, outcome, targets, {
    ...(facts?.job ? { job: facts.job } : {}),
    ...(facts?.note ? { message: facts.note } : {}),
    ...(facts?.previous ? { previous: facts.previous } : {}),
  });
  await clientLog(call.mcp, "notice", {
    tool: call.b.tool.name,
    outcome,
    targets,
    ...(facts?.job ? { job: facts.job } : {}),
  });
  if (call.b.runtime.audience.features.has("audit-log") && facts?.previous) {
    return `${text}\nAudit entry ${entry.id}: \`undo_metadata_change\` with this id puts back what was there before.`;
  }
  return text;
}

/** The one writer of a tool call's audit entries: who, which tool, what on, the arguments' digest, the outcome. */
function record(
  call: Call,
  outcome: AuditOutcome,
  targets: TargetRef[],
  extra: { message?: string; job?: string; previous?: AuditFacts["previous"] },
) {
  const { runtime, tool } = call.b;
  return runtime.audit.record({
    user: runtime.session.username,
    tool: tool.name,
    targets,
    argsDigest: digestArgs(call.args),
    outcome,
    ...extra,
  });
}

/** What the client receives from a call that ran. */
function answerWith(text: string, answer: ToolAnswer<unknown>): CallToolResult {
  const content: CallToolResult["content"] = [{ type: "text", text }];
  if (answer.links) for (const l of answer.links) content.push({ type: "resource_link", ...l });
  return { content, structuredContent: answer.structured as Record<string, unknown> };
}

/**
 * A call that threw: a sign-in to ask for, or one sentence the model can act on, logged (a bug with its
 * stack), told to clients that show a log, and audited when the tool writes.
 */
async function fail(call: Call, thrown: unknown): Promise<ToolCallResult> {
  const { server, tool, runtime, writes } = call.b;
  // Past the deadline, whatever the cancelled request threw ("request cancelled") is not the story.
  const err = call.deadline.expired
    ? new ToolDeadlineExceeded(
        runtime.config.toolTimeoutSecs,
        runtime.session.state.kind === "signed-out" ? runtime.session.displayUrl : undefined,
      )
    : thrown;
  if (err instanceof ChallengeRequired && clientCanElicit(server)) return askForSignInCode(err);
  // The person's session ended during the call (its lifetime): ask them to sign in again.
  if (runtime.person && err instanceof SignInRequired) return runtime.person.ask(server, tool.name, err);
  const message = toUserMessage(err, tool.name);
  const kind = classify(err);
  if (kind === "bug") {
    // A bug, not a service answer: keep the stack for whoever reads the log (stderr only).
    runtime.log.error({ tool: tool.name, err }, "tool call failed unexpectedly");
  } else {
    const logged = isServiceError(err) || err instanceof SignInFailed ? err.toJSON() : (err as Error).message;
    runtime.log.warn({ tool: tool.name, err: logged }, "tool call failed");
  }
  await clientLog(call.mcp, kind === "bug" ? "error" : "warning", { tool: tool.name, message });
  if (writes) {
    await record(call, kind === "refused" ? "refused" : "failed", targetsOf(call.plan), { message }).catch(
      (e: unknown) => runtime.log.error({ err: e }, "audit log write failed"),
    );
  }
  return { isError: true, content: [{ type: "text", text: message }] };
}

/**
 * A log message for the client (MCP logging), sent only at or above the level it asked for; failing to send
 * one (the client went away) never fails the call. Holds what the answer already says: no secrets.
 */
function clientLog(
  mcp: ServerContext,
  level: "notice" | "warning" | "error",
  data: Record<string, unknown>,
): Promise<void> {
  return mcp.mcpReq.log(level, data, "preservation-mcp").catch(() => {});
}

function targetsOf(plan: ConfirmPlan | undefined): TargetRef[] {
  return (plan?.targets ?? []).map(({ ref, title }) => ({ ref, title }));
}

/** The first call of a confirmed act: what would change, and how to go ahead. Nothing has changed. */
function previewAnswer(tool: AnyTool, d: Extract<Decision, { kind: "preview" }>): CallToolResult {
  const confirmationRequired = {
    summary: d.plan.summary,
    details: d.plan.details,
    targets: targetsOf(d.plan),
    ...(d.plan.preview ? { preview: d.plan.preview } : {}),
    token: d.token,
    expiresAt: d.expiresAt,
  };
  const text = [
    `Needs the person's confirmation. ${planText(d.plan)}`,
    `Nothing has been changed. Show this to the person; if they agree, call \`${tool.name}\` again with the same arguments and confirmation: "${d.token}" (valid until ${d.expiresAt}, once).`,
  ].join("\n");
  return { content: [{ type: "text", text }], structuredContent: { confirmationRequired } };
}
