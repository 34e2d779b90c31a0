import type { Dispatcher, Pool } from "undici";
import requestImpl from "undici/lib/api/api-request.js";
import PoolImpl from "undici/lib/dispatcher/pool.js";

/**
 * undici's Pool and its `request`, without the package's index: `import { Pool } from "undici"` evaluates all
 * of undici at start-up (fetch, WebSocket, EventSource, the cache, mock and proxy agents, ~950 KB of the
 * bundle), which a cold start paid for and never used; these two modules are all HttpClient needs. The index
 * only adds `request` to every dispatcher's prototype, so here it is called on the pool instead. The types
 * still come from the package.
 */
export const LeanPool: typeof Pool = PoolImpl;

export function poolRequest(pool: Pool, opts: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData> {
  return requestImpl.call(pool, opts);
}
