import type { Logger } from "pino";
import { MemoryState } from "./memory.js";
import type { SharedState } from "./types.js";

export type { AuditFilter, Lease, SharedState } from "./types.js";
export { StateUnavailableError } from "./types.js";

/**
 * The shared state for this process: Valkey/Redis when a URL is configured (PRESERVATION_STATE_URL, several
 * instances of a team server), else in-process (stdio, one instance). The Redis client is loaded only when
 * used, so a server without a store starts as fast as before.
 */
export async function openSharedState(url: string | undefined, log?: Logger): Promise<SharedState> {
  if (!url) return new MemoryState();
  const { RedisState } = await import("./redis.js");
  return RedisState.open({ url, ...(log ? { log } : {}) });
}
