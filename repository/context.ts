import type { Context } from "hono";
import type { ActionRunner } from "./jobs/runner.js";
import type { Permissions, User } from "./store/auth.js";
import type { ContentStore } from "./store/content-store.js";
import type { Db } from "./store/db.js";
import type { Webhooks } from "./webhooks/service.js";

/** Everything a route needs from the running service, fixed at start-up. */
export interface ServiceContext {
  db: Db;
  content: ContentStore;
  /** Data directory (the challenge outbox lives under it). */
  dataDir: string;
  /** Access-token lifetime in milliseconds (from --token-ttl). */
  tokenTtlMs: number;
  /** Newest Entity API version served, e.g. "7.7"; the unversioned path answers in it. */
  apiVersion: string;
  /** Session lifetime in minutes (maxSessionLifetimeMins); a refresh past it is refused. */
  maxSessionLifetimeMins: number;
  /** Shared secret of the deprecated acquire-external login. */
  externalAuthSecret: string;
  /** Milliseconds since the epoch; injectable so tests can move time. */
  now: () => number;
  /** Runs long-running actions (moves, deletions, CSV edits, ...) off the request path. */
  actions: ActionRunner;
  /** Largest content upload in bytes (new generation, new representation); unset = 4 GiB. */
  maxUploadBytes?: number;
  /** Webhook settings and delivery worker (webhooks/service.ts); absent = defaults, no worker. */
  webhooks?: Webhooks;
}

/** The authenticated caller, set by the token middleware. */
export interface Caller {
  user: User;
  token: string;
  permissions: Permissions;
}

export type AppEnv = {
  Variables: {
    svc: ServiceContext;
    caller: Caller;
  };
};

/** The current instant as the service sees it (injectable in tests), ISO 8601 UTC. */
export function nowIso<E extends AppEnv>(c: Context<E>): string {
  return new Date(c.get("svc").now()).toISOString();
}
