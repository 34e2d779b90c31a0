import type { ServerContext } from "@modelcontextprotocol/server";
import type { ContentApi } from "../api/content.js";
import type { EntityApi } from "../api/entity.js";
import type { ServiceClient } from "../api/index.js";
import type { Config } from "../config.js";
import type { AuditLog } from "../guards/audit.js";
import type { Session } from "../session/session.js";
import type { ToolContext } from "../tools/context.js";
import type { ConfirmPlan } from "../tools/define.js";
import { ALL_TOOLS } from "../tools/index.js";
import type { ServerRuntime } from "./runtime.js";

/** What every call of one tool on one server instance hands its handler alike: made once, not per call. */
export interface SharedContext {
  toolName: string;
  runtime: ServerRuntime;
  api: ServiceClient;
  signedIn: () => Promise<void>;
  access: ToolContext["access"];
}

export function sharedContext(
  toolName: string,
  runtime: ServerRuntime,
  api: ServiceClient,
  signedIn: () => Promise<void>,
): SharedContext {
  return { toolName, runtime, api, signedIn, access: { audience: runtime.audience, tools: ALL_TOOLS } };
}

/**
 * A handler's context for one call: the shared parts copied in, the call's own signal, and progress and
 * confirmation as methods rather than closures made per call.
 */
export class CallContext implements ToolContext {
  readonly api: ServiceClient;
  readonly entity: EntityApi;
  readonly content: ContentApi;
  readonly session: Session;
  readonly config: Config;
  readonly log: ServerRuntime["log"];
  readonly audit: AuditLog;
  readonly signedIn: () => Promise<void>;
  readonly signOut: (() => Promise<void>) | undefined;
  readonly access: ToolContext["access"];
  readonly #shared: SharedContext;
  readonly #mcp: ServerContext;
  #lastProgress = Number.NEGATIVE_INFINITY;

  constructor(
    shared: SharedContext,
    readonly signal: AbortSignal,
    mcp: ServerContext,
  ) {
    const { runtime, api } = shared;
    this.api = api;
    this.entity = api.entity;
    this.content = api.content;
    this.session = runtime.session;
    this.config = runtime.config;
    this.log = runtime.log;
    this.audit = runtime.audit;
    this.signedIn = shared.signedIn;
    this.signOut = runtime.person?.signOut;
    this.access = shared.access;
    this.#shared = shared;
    this.#mcp = mcp;
  }

  confirmationFor(forArgs: Record<string, unknown>, plan: ConfirmPlan): { token: string; expiresAt: string } {
    const { runtime, toolName } = this.#shared;
    return runtime.confirm.issue(toolName, forArgs, plan, runtime.session.username);
  }

  async progress(progress: number, total?: number, message?: string): Promise<void> {
    const progressToken = this.#mcp.mcpReq._meta?.progressToken;
    // The protocol wants each notification's progress above the last: a tool that uploads (bytes) and then
    // waits for its job (percent) would otherwise go backwards, so a lower value is not sent.
    if (progressToken === undefined || progress <= this.#lastProgress) return;
    this.#lastProgress = progress;
    await this.#mcp.mcpReq.notify({
      method: "notifications/progress",
      params: {
        progressToken,
        progress,
        ...(total !== undefined ? { total } : {}),
        ...(message ? { message } : {}),
      },
    });
  }
}
