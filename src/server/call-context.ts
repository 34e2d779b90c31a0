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
 * A handler's context for one call: the call's own signal, and everything else read from what every call of
 * the tool shares (getters, not fields copied in per call); progress and confirmation as methods rather than
 * closures made per call.
 */
export class CallContext implements ToolContext {
  readonly #shared: SharedContext;
  readonly #mcp: ServerContext;
  #lastProgress = Number.NEGATIVE_INFINITY;

  constructor(
    shared: SharedContext,
    readonly signal: AbortSignal,
    mcp: ServerContext,
  ) {
    this.#shared = shared;
    this.#mcp = mcp;
  }

  get api(): ServiceClient {
    return this.#shared.api;
  }
  get entity(): EntityApi {
    return this.#shared.api.entity;
  }
  get content(): ContentApi {
    return this.#shared.api.content;
  }
  get session(): Session {
    return this.#shared.runtime.session;
  }
  get config(): Config {
    return this.#shared.runtime.config;
  }
  get log(): ServerRuntime["log"] {
    return this.#shared.runtime.log;
  }
  get audit(): AuditLog {
    return this.#shared.runtime.audit;
  }
  get signedIn(): () => Promise<void> {
    return this.#shared.signedIn;
  }
  get signOut(): (() => Promise<void>) | undefined {
    return this.#shared.runtime.person?.signOut;
  }
  get access(): ToolContext["access"] {
    return this.#shared.access;
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
