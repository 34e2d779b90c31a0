/**
 * The Entity API's public surface, one import for callers: its objects (entity/types.ts), the pure readers of
 * its replies (entity/read.ts), the read client (entity/client.ts) and the write client (entity/write.ts).
 * Kept at this path (NodeNext resolves no folder index) so the many callers import it unchanged.
 */

export * from "./entity/client.js";
export * from "./entity/read.js";
export * from "./entity/types.js";
export * from "./entity/write.js";
export { looksLikeRef } from "./refs.js";
