import { McpServer, type RegisteredTool } from "@modelcontextprotocol/server";
import type { Logger } from "pino";
import { z } from "zod";
import { isServiceError } from "../api/errors.js";
import { createServiceClient, type ServiceClient } from "../api/index.js";
import type { Config } from "../config.js";
import { AuditLog, type AuditOutcome, digestArgs } from "../guards/audit.js";
import { ConfirmationGuard, ConfirmationRequiredSchema, type Decision, planText } from "../guards/confirm.js";
import { strictInput } from "../guards/strict-inputs.js";
import { type Audience, changesRepository, isToolVisible } from "../guards/visibility.js";
import type { PersonGate } from "../identity/gate.js";
import { offerSubscriptions, type SubscriptionSink } from "../live/subscribe-handlers.js";
import { LocalPathError } from "../local/roots.js";
import { registerPrompts } from "../prompts/index.js";
import { registerResources } from "../resources/index.js";
import { ChallengeRequired, type Session, SignInRequired } from "../session/session.js";
import { askForSignInCode, clientCanElicit, completeSignInFromAnswer } from "../session/sign-in.js";
import { SignInFailed } from "../session/sign-in-failure.js";
import { MemoryState } from "../state/memory.js";
import { type SharedState, StateUnavailableError } from "../state/types.js";
import type { ToolContext } from "../tools/context.js";
import { type AnyTool, type ConfirmPlan, type TargetRef, UserInputError } from "../tools/define.js";
import { ALL_TOOLS } from "../tools/index.js";
import { notOfferedAnswer, rolesInWords } from "../tools/support/access.js";
import { TOOLSET_IDS, TOOLSETS, type ToolsetInfo } from "../tools/toolsets.js";
import { startDeadline } from "./deadline.js";
import { ToolDeadlineExceeded, toUserMessage } from "./errors.js";
import { answerToolsNotOffered } from "./not-offered.js";
import { listedInput, listedOutput } from "./schemas.js";

export const SERVER_INFO = { name: "preservation-mcp", version: "0.1.0" };

export const INSTRUCTIONS = `Tools for a digital preservation repository (Preservica-compatible). The collection is a tree:
folders (SO) hold assets (IO); an asset has representations (Preservation, Access) of content objects (CO), whose
generations hold the files (bitstreams). Start with \`search\` or \`browse\`; pass the refs they return to the other
tools. Lists are paged: pass \`cursor\` back for more.`;

/**
 * The server's instructions: the overview, then how the tools this session is offered fit together. A
 * toolset's instructions (its write and confirmation flows) come only with a tool of it that acts, so a
 * reader is not told about flows they cannot use, but is told why (and that `whoami` explains).
 */
export function instructionsFor(audience: Audience): string {
  const offered = ALL_TOOLS.filter((t) => isToolVisible(t, audience));
  const extra = TOOLSET_IDS.filter((t) => offered.some((o) => o.toolset === t && !o.annotations.readOnlyHint))
    .map((t) => (TOOLSETS[t] as ToolsetInfo).instructions)
    .filter(Boolean);
  const writes = audience.readOnly
    ? ["Read-only mode: nothing in the repository can be changed through these tools."]
    : audience.roles && !offered.some(changesRepository)
      ? [
          `This session (${rolesInWords(audience.roles)}) is offered no tool that changes the repository. Asked for a change, say so and which role it needs (\`whoami\` tells), rather than trying.`,
        ]
      : [];
  return [INSTRUCTIONS, ...extra, ...writes].join("\n");
}

const TOOLS_BY_NAME = new Map(ALL_TOOLS.map((t) => [t.name, t]));

export interface ServerDeps {
  config: Config;
  session: Session;
  log: Logger;
  audience: Audience;
  /** Seals confirmation tokens; shared by every server instance of the process (made on first use). */
  confirm?: ConfirmationGuard;
  /** The audit log (made on first use from config.auditLog). */
  audit?: AuditLog;
  /**
   * What every instance of a team server shares (spent tokens, target leases, the audit trail): from
   * PRESERVATION_STATE_URL, else in-process (made on first use).
   */
  state?: SharedState;
  /** Live server instances, so a change of roles can update their tool lists (list_changed). */
  live?: Set<WeakRef<LiveServer>>;
  /** Person mode: the caller, who must be signed in to the repository as themselves (`session` is theirs). */
  person?: PersonGate;
}

interface LiveServer {
  server: McpServer;
  registered: Map<string, RegisteredTool>;
  api: ServiceClient;
}

/** Resource subscriptions this instance offers (live resources; see src/live/). */
export interface Watching {
  /** A 2025 session's: `resources/subscribe` and `resources/unsubscribe` record what it watches here. */
  sink?: SubscriptionSink;
  /** A 2026-07-28 instance: `subscriptions/listen` (served by the SDK) may ask for resource updates. */
  listen?: boolean;
}

/**
 * Builds one McpServer from the configuration. Cheap and stateless, so the HTTP entry can call it per
 * request: the session (token, refresh) is shared through `deps` and outlives each instance.
 */
export function buildServer(deps: ServerDeps, watching: Watching = {}): McpServer {
  const subscribe = watching.sink !== undefined || watching.listen === true;
  const server = new McpServer(SERVER_INFO, {
    capabilities: {
      tools: { listChanged: true },
      // `subscribe` only where updates can really arrive: live resources on, and a session (2025) or a
      // listen stream (2026) to carry them.
      resources: subscribe ? { subscribe: true } : {},
      prompts: {},
      completions: {},
      // What a tool call ran into (a failure, a write recorded in the audit log), as notifications/message
      // for clients that show a log: only at or above the level the client asked for (2025: logging/setLevel;
      // 2026-07-28: the level in each request's _meta), never secrets. The server's own log stays on stderr.
      logging: {},
    },
    instructions: instructionsFor(deps.audience),
  });
  if (watching.sink) offerSubscriptions(server, watching.sink);
  const live: LiveServer = { server, registered: new Map(), api: serviceClientOf(deps.session) };
  syncTools(live, deps);
  answerToolsNotOffered(server, (name) => {
    const tool = live.registered.has(name) ? undefined : TOOLS_BY_NAME.get(name);
    return tool && notOfferedAnswer(tool, deps.audience, deps.session.username);
  });
  track(deps, live);
  registerResources(server, {
    entity: live.api.entity,
    content: live.api.content,
    operations: live.api.operations,
    log: deps.log,
  });
  registerPrompts(server, {
    entity: live.api.entity,
    content: live.api.content,
    log: deps.log,
    audience: deps.audience,
  });
  return server;
}

/**
 * One service client per session: the API objects hold nothing but the session's HTTP client, so every
 * server instance (one per HTTP request) shares them, and what is made once per client (prompt argument
 * schemas) stays made.
 */
const CLIENTS = new WeakMap<Session, ServiceClient>();
export function serviceClientOf(session: Session): ServiceClient {
  let api = CLIENTS.get(session);
  if (!api) {
    api = createServiceClient(session.http);
    CLIENTS.set(session, api);
  }
  return api;
}

/**
 * The same server as seen by a caller limited to reading (an OAuth token with only the read scope): one
 * session, one confirmation key, one audit log; the roles are read from and written to the shared audience,
 * so a sign-in finished through either view is known to both.
 */
export function readOnlyDeps(deps: ServerDeps): ServerDeps {
  guardsOf(deps);
  const shared = deps.audience;
  const audience: Audience = {
    readOnly: true,
    toolsets: shared.toolsets,
    features: shared.features,
    get roles() {
      return shared.roles;
    },
    set roles(roles) {
      shared.roles = roles;
    },
  };
  // Its own set of live servers: a change of roles re-syncs them with this (read-only) audience, and the
  // full audience's re-sync never reaches them.
  return { ...deps, audience, live: new Set() };
}

/**
 * The server as one person sees it on a person mode team server: their own session (and so their roles, their
 * name in confirmations and audit entries, their rights at the service), the process's confirmation key and
 * audit log. Roles undefined: not signed in yet (role-gated tools stay hidden).
 */
export function personDeps(
  deps: ServerDeps,
  session: Session,
  roles: readonly string[] | undefined,
  person: PersonGate,
): ServerDeps {
  guardsOf(deps);
  const { readOnly, toolsets, features } = deps.audience;
  return { ...deps, session, audience: { readOnly, toolsets, features, roles }, live: new Set(), person };
}

/**
 * The process's shared state, confirmation guard and audit log, made on first use and shared by every server
 * instance. A target's lease outlives the longest tool call (the deadline), plus a margin.
 */
function guardsOf(deps: ServerDeps): { confirm: ConfirmationGuard; audit: AuditLog; state: SharedState } {
  deps.state ??= new MemoryState();
  const state = deps.state;
  const leaseMs = deps.config.toolTimeoutSecs * 1000 + 15_000;
  deps.confirm ??= new ConfirmationGuard(deps.config.confirmKey, undefined, undefined, state, leaseMs);
  deps.audit ??= new AuditLog(deps.config.auditLog, state, (err) =>
    deps.log.warn(
      { err: err instanceof Error ? err.message : String(err) },
      "an audit entry could not be written to the shared state",
    ),
  );
  return { confirm: deps.confirm, audit: deps.audit, state };
}

/**
 * Remembers a server instance for re-syncing its tool list. Over HTTP every request builds one, so the
 * references to instances already collected are swept as new ones arrive: the set stays the size of the live
 * ones instead of growing with every request.
 */
const SWEEP_AT = 64;
function track(deps: ServerDeps, live: LiveServer): void {
  deps.live ??= new Set();
  if (deps.live.size >= SWEEP_AT) for (const ref of deps.live) if (!ref.deref()) deps.live.delete(ref);
  deps.live.add(new WeakRef(live));
}

/** Registers the tools the audience may now see and removes the others (each change tells the client). */
function syncTools(live: LiveServer, deps: ServerDeps): void {
  const guards = guardsOf(deps);
  for (const tool of ALL_TOOLS) {
    const visible = isToolVisible(tool, deps.audience);
    const current = live.registered.get(tool.name);
    if (visible && !current) {
      live.registered.set(tool.name, registerTool(live.server, tool, deps, { api: live.api, ...guards }));
    } else if (!visible && current) {
      current.remove();
      live.registered.delete(tool.name);
    }
  }
}

/**
 * After a sign-in completes (or a re-login), the roles are known: every live server instance updates its
 * tool list, which sends `notifications/tools/list_changed` to clients that can hear it.
 */
export async function refreshAudience(deps: ServerDeps): Promise<void> {
  const roles = (await deps.session.whoAmI()).roles;
  const before = deps.audience.roles?.join(",");
  deps.audience.roles = roles;
  if (before === roles.join(",")) return;
  for (const ref of deps.live ?? []) {
    const live = ref.deref();
    if (!live) deps.live?.delete(ref);
    else syncTools(live, deps);
  }
}

/** What the model may pass besides the tool's own arguments when the tool asks for confirmation. */
const CONFIRMATION_ARG = z
  .string()
  .max(8192)
  .optional()
  .describe("Only once the person agreed to a preview: its token");

/**
 * The schemas as registered: strict inputs; a confirmed tool also takes `confirmation` and may answer a
 * preview. Made once per tool and kept: over HTTP every request builds a server, and the JSON Schema each
 * lists is then computed once, not per request.
 */
const REGISTERED = new WeakMap<AnyTool, { input: z.ZodObject; output: z.ZodObject }>();
function registeredSchemas(tool: AnyTool): { input: z.ZodObject; output: z.ZodObject } {
  let schemas = REGISTERED.get(tool);
  if (!schemas) {
    schemas = tool.confirm
      ? {
          input: listedInput(strictInput(tool.inputSchema.safeExtend({ confirmation: CONFIRMATION_ARG }))),
          output: listedOutput(
            tool.outputSchema
              .partial()
              .safeExtend({ confirmationRequired: ConfirmationRequiredSchema.optional() }),
          ),
        }
      : { input: listedInput(strictInput(tool.inputSchema)), output: listedOutput(tool.outputSchema) };
    REGISTERED.set(tool, schemas);
  }
  return schemas;
}

function registerTool(
  server: McpServer,
  tool: AnyTool,
  // The shared deps object itself, never a copy: a copy made before `live` was set would miss the instances
  // a later change of roles must re-sync.
  deps: ServerDeps,
  {
    api,
    confirm,
    audit: auditLog,
    state,
  }: { api: ServiceClient; confirm: ConfirmationGuard; audit: AuditLog; state: SharedState },
): RegisteredTool {
  const schemas = registeredSchemas(tool);
  const writes = changesRepository(tool);
  return server.registerTool(
    tool.name,
    {
      title: tool.title,
      description: tool.description,
      inputSchema: schemas.input,
      outputSchema: schemas.output,
      annotations: { title: tool.title, ...tool.annotations },
    },
    async (rawArgs: Record<string, unknown>, ctx) => {
      const signIn = await completeSignInFromAnswer(ctx, deps.session, () => refreshAudience(deps));
      if (signIn) return signIn;
      // Person mode: nothing runs until the caller is signed in as themselves (sent to the sign-in page).
      if (deps.person && !tool.withoutSession) {
        const waitMs = Math.min(120_000, Math.max(1000, deps.config.toolTimeoutSecs * 1000 - 2000));
        const asked = await deps.person.check(server, ctx, deps.session, tool.name, waitMs);
        if (asked) return asked;
      }
      const progressToken = ctx.mcpReq._meta?.progressToken;
      // One overall deadline per call: it aborts the signal every request takes, and stops waiting for
      // whatever does not take it, so a stalled service cannot hold the call past the client's own limit.
      // Transfers of whole files are exempt: they report progress instead, and stop when the client cancels.
      const deadline = startDeadline(
        tool.transfersFiles ? null : deps.config.toolTimeoutSecs * 1000,
        ctx.mcpReq.signal,
      );
      let lastProgress = Number.NEGATIVE_INFINITY;
      const toolCtx: ToolContext = {
        api,
        entity: api.entity,
        content: api.content,
        session: deps.session,
        config: deps.config,
        log: deps.log,
        audit: auditLog,
        signal: deadline.signal,
        signedIn: () => refreshAudience(deps),
        ...(deps.person ? { signOut: (deps.person as PersonGate).signOut } : {}),
        access: { audience: deps.audience, tools: ALL_TOOLS },
        confirmationFor: (forArgs, plan) => confirm.issue(tool.name, forArgs, plan, deps.session.username),
        async progress(progress, total, message) {
          // The protocol wants each notification's progress above the last: a tool that uploads (bytes) and
          // then waits for its job (percent) would otherwise go backwards, so a lower value is not sent.
          if (progressToken === undefined || progress <= lastProgress) return;
          lastProgress = progress;
          await ctx.mcpReq.notify({
            method: "notifications/progress",
            params: {
              progressToken,
              progress,
              ...(total !== undefined ? { total } : {}),
              ...(message ? { message } : {}),
            },
          });
        },
      };
      const started = performance.now();
      const audit = (
        outcome: AuditOutcome,
        targets: TargetRef[],
        extra: { message?: string; job?: string } = {},
      ) =>
        auditLog.record({
          user: deps.session.username,
          tool: tool.name,
          targets,
          argsDigest: digestArgs(args),
          outcome,
          ...extra,
        });
      let args = rawArgs;
      let plan: ConfirmPlan | undefined;
      /** A confirmed call's lease on its targets: held through the write, released whatever happens. */
      let release: (() => Promise<void>) | undefined;
      try {
        if (tool.confirm) {
          const decision: Decision = await deadline.run(
            confirm.decide(tool, rawArgs, {
              ctx: toolCtx,
              mcp: ctx,
              canAsk: clientCanElicit(server),
              user: deps.session.username,
            }),
          );
          switch (decision.kind) {
            case "ask":
              return decision.result;
            case "preview":
              return previewAnswer(tool, decision);
            case "refused":
              await audit(decision.outcome, targetsOf(decision.plan), { message: decision.message });
              return { isError: true, content: [{ type: "text" as const, text: decision.message }] };
            case "run":
              args = decision.args;
              plan = decision.plan;
              release = decision.release;
          }
        }
        // Fail closed: a write goes ahead only while the shared state answers (a confirmed one holds its lease).
        if (writes && !release) await state.ping();
        const answer = await deadline.run(tool.handler(args, toolCtx));
        // Signed in late (start-up could not): from now on, server instances show role-gated tools.
        if (deps.audience.roles === undefined && deps.session.state.kind === "active") {
          void refreshAudience(deps).catch(() => {});
        }
        deps.log.debug({ tool: tool.name, ms: Math.round(performance.now() - started) }, "tool call");
        let text = answer.text ?? JSON.stringify(answer.structured);
        if (writes && !answer.onlyRead) {
          const facts = answer.audit;
          const entry = await auditLog.record({
            user: deps.session.username,
            tool: tool.name,
            targets: facts?.targets ?? targetsOf(plan),
            argsDigest: digestArgs(args),
            outcome: facts?.job && !facts.jobFinished ? "started" : "done",
            ...(facts?.job ? { job: facts.job } : {}),
            ...(facts?.note ? { message: facts.note } : {}),
            ...(facts?.previous ? { previous: facts.previous } : {}),
          });
          if (deps.audience.features.has("audit-log") && facts?.previous) {
            text += `\nAudit entry ${entry.id}: \`undo_metadata_change\` with this id puts back what was there before.`;
          }
          await clientLog(ctx, "notice", {
            tool: tool.name,
            outcome: facts?.job && !facts.jobFinished ? "started" : "done",
            targets: facts?.targets ?? targetsOf(plan),
            ...(facts?.job ? { job: facts.job } : {}),
          });
        }
        return {
          content: [
            { type: "text" as const, text },
            ...(answer.links ?? []).map((l) => ({ type: "resource_link" as const, ...l })),
          ],
          structuredContent: answer.structured,
        };
      } catch (thrown) {
        // Past the deadline, whatever the cancelled request threw ("request cancelled") is not the story.
        const err = deadline.expired
          ? new ToolDeadlineExceeded(
              deps.config.toolTimeoutSecs,
              deps.session.state.kind === "signed-out" ? deps.session.displayUrl : undefined,
            )
          : thrown;
        if (err instanceof ChallengeRequired && clientCanElicit(server)) return askForSignInCode(err);
        // The person's session ended during the call (its lifetime): ask them to sign in again.
        if (deps.person && err instanceof SignInRequired) return deps.person.ask(server, tool.name, err);
        const message = err instanceof StateUnavailableError ? err.message : toUserMessage(err, tool.name);
        const expected =
          err instanceof StateUnavailableError ||
          isServiceError(err) ||
          err instanceof UserInputError ||
          err instanceof LocalPathError ||
          err instanceof ChallengeRequired ||
          err instanceof SignInFailed ||
          err instanceof ToolDeadlineExceeded;
        if (expected) {
          deps.log.warn(
            {
              tool: tool.name,
              err: isServiceError(err) || err instanceof SignInFailed ? err.toJSON() : err.message,
            },
            "tool call failed",
          );
        } else {
          // A bug, not a service answer: keep the stack for whoever reads the log (stderr only).
          deps.log.error({ tool: tool.name, err }, "tool call failed unexpectedly");
        }
        await clientLog(ctx, expected ? "warning" : "error", { tool: tool.name, message });
        if (writes) {
          const refused =
            err instanceof StateUnavailableError ||
            err instanceof UserInputError ||
            err instanceof LocalPathError ||
            (isServiceError(err) && [400, 403, 404, 409, 422].includes(err.status));
          await audit(refused ? "refused" : "failed", targetsOf(plan), { message }).catch((e: unknown) =>
            deps.log.error({ err: e }, "audit log write failed"),
          );
        }
        return { isError: true, content: [{ type: "text" as const, text: message }] };
      } finally {
        await release?.();
        deadline.dispose();
      }
    },
  );
}

/**
 * A log message for the client (MCP logging), sent only at or above the level it asked for; failing to send
 * one (the client went away) never fails the call. Holds what the answer already says: no secrets.
 */
function clientLog(
  ctx: {
    mcpReq: { log(level: "notice" | "warning" | "error", data: unknown, logger?: string): Promise<void> };
  },
  level: "notice" | "warning" | "error",
  data: Record<string, unknown>,
): Promise<void> {
  return ctx.mcpReq.log(level, data, "preservation-mcp").catch(() => {});
}

function targetsOf(plan: ConfirmPlan | undefined): TargetRef[] {
  return (plan?.targets ?? []).map(({ ref, title }) => ({ ref, title }));
}

/** The first call of a confirmed act: what would change, and how to go ahead. Nothing has changed. */
function previewAnswer(tool: AnyTool, d: Extract<Decision, { kind: "preview" }>) {
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
  return { content: [{ type: "text" as const, text }], structuredContent: { confirmationRequired } };
}
