import type { McpServer, RegisteredTool } from "@modelcontextprotocol/server";
import type { Logger } from "pino";
import type { ServiceClient } from "../api/index.js";
import type { Config } from "../config.js";
import { AuditLog } from "../guards/audit.js";
import { ConfirmationGuard } from "../guards/confirm.js";
import type { Audience } from "../guards/visibility.js";
import type { PersonGate } from "../identity/gate.js";
import type { Session } from "../session/session.js";
import { MemoryState } from "../state/memory.js";
import type { SharedState } from "../state/types.js";

/** What a caller of buildServer supplies: who is served, how, and (optionally) the shared state. */
export interface ServerDeps {
  config: Config;
  session: Session;
  log: Logger;
  audience: Audience;
  /**
   * What every instance of a team server shares (spent tokens, target leases, the audit trail): from
   * PRESERVATION_STATE_URL, else in-process (made with the runtime).
   */
  state?: SharedState;
  /** Person mode: the caller, who must be signed in to the repository as themselves (`session` is theirs). */
  person?: PersonGate;
}

/**
 * ServerDeps with what every server instance of the process shares, made once (serverRuntime): the confirmation
 * guard, the audit log, the shared state, and the live instances a change of roles re-syncs.
 */
export interface ServerRuntime extends ServerDeps {
  /** Seals confirmation tokens and leases the targets of a confirmed write. */
  confirm: ConfirmationGuard;
  /** The audit log (config.auditLog) and the shared audit trail. */
  audit: AuditLog;
  state: SharedState;
  /** Live server instances, so a change of roles can update their tool lists (list_changed). */
  live: Set<WeakRef<LiveServer>>;
}

/** One server instance as a change of roles re-syncs it. */
export interface LiveServer {
  server: McpServer;
  registered: Map<string, RegisteredTool>;
  api: ServiceClient;
}

const RUNTIMES = new WeakSet<ServerRuntime>();
const PREPARED = new WeakMap<ServerDeps, ServerRuntime>();

/**
 * The runtime of `deps`, made once: start-up makes it before serving, and a caller that passes the same plain
 * deps again (a test's HTTP handler builds a server per request) gets the same one, so a confirmation token
 * issued by one instance is accepted by the next. A target's lease outlives the longest tool call (the
 * deadline), plus a margin.
 */
export function serverRuntime(deps: ServerDeps): ServerRuntime {
  if (RUNTIMES.has(deps as ServerRuntime)) return deps as ServerRuntime;
  const made = PREPARED.get(deps);
  if (made) return made;
  const state = deps.state ?? new MemoryState();
  const leaseMs = deps.config.toolTimeoutSecs * 1000 + 15_000;
  const runtime = runtimeOf({
    ...deps,
    state,
    confirm: new ConfirmationGuard(deps.config.confirmKey, undefined, undefined, state, leaseMs),
    audit: new AuditLog(deps.config.auditLog, state, (err) =>
      deps.log.warn(
        { err: err instanceof Error ? err.message : String(err) },
        "an audit entry could not be written to the shared state",
      ),
    ),
    live: new Set(),
  });
  PREPARED.set(deps, runtime);
  return runtime;
}

function runtimeOf(runtime: ServerRuntime): ServerRuntime {
  RUNTIMES.add(runtime);
  return runtime;
}

/**
 * The same server as seen by a caller limited to reading (an OAuth token with only the read scope): one
 * session, one confirmation key, one audit log; the roles are read from and written to the shared audience,
 * so a sign-in finished through either view is known to both.
 */
export function readOnlyDeps(deps: ServerDeps): ServerRuntime {
  const base = serverRuntime(deps);
  const shared = base.audience;
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
  return runtimeOf({ ...base, audience, live: new Set() });
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
): ServerRuntime {
  const base = serverRuntime(deps);
  const { readOnly, toolsets, features } = base.audience;
  return runtimeOf({
    ...base,
    session,
    audience: { readOnly, toolsets, features, roles },
    live: new Set(),
    person,
  });
}
