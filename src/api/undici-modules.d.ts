// The two undici modules src/api/undici-lean.ts loads by path (the package's index.d.ts types them).
declare module "undici/lib/dispatcher/pool.js" {
  import type { Pool } from "undici";

  const PoolImpl: typeof Pool;
  export default PoolImpl;
}
declare module "undici/lib/api/api-request.js" {
  import type { Dispatcher } from "undici";

  const request: (this: Dispatcher, opts: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;
  export default request;
}
