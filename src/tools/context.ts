import type { Logger } from "pino";
import type { ContentApi } from "../api/content.js";
import type { EntityApi } from "../api/entity.js";
import type { ServiceClient } from "../api/index.js";
import type { Config } from "../config.js";
import type { AuditLog } from "../guards/audit.js";
import type { Audience } from "../guards/visibility.js";
import type { Session } from "../session/session.js";
import type { AnyTool, ConfirmPlan } from "./define.js";

/** What every tool handler gets: the typed service APIs, the session, and the request's signal/progress. */
export interface ToolContext {
  /** Every API of the service (ctx.api.structure, ctx.api.lifecycle, ...); `entity`/`content` are the same objects. */
  api: ServiceClient;
  entity: EntityApi;
  content: ContentApi;
  session: Session;
  config: Config;
  log: Logger;
  /** The audit trail: every write recorded, shared by every instance of a team server. */
  audit: AuditLog;
  /** Aborted when the client cancels the call: pass it to every request. */
  signal: AbortSignal;
  /** Call after a sign-in challenge completes: the roles are known from then on. */
  signedIn(): Promise<void>;
  /** On a person mode team server: ends the caller's repository session here and on every instance. */
  signOut?(): Promise<void>;
  /** Who this session serves and every tool there is: what `whoami` explains (support/access.ts). */
  access: { audience: Audience; tools: readonly AnyTool[] };
  /**
   * A confirmation token for a later call of this tool with `args`, bound to the plan's targets, for a tool
   * whose own read-only step is the preview (guards/confirm.ts checks it like any other).
   */
  confirmationFor(args: Record<string, unknown>, plan: ConfirmPlan): { token: string; expiresAt: string };
  /** Reports progress when the client asked for it (a no-op otherwise). */
  progress(progress: number, total?: number, message?: string): Promise<void>;
}
