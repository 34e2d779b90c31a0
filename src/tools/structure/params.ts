import type { ToolContext } from "../context.js";

/**
 * What the structure tools share beyond the confirmed writes' support (support/writes.ts): the write hints
 * and a folder's direct children.
 */

/** A write that changes nothing it cannot change back, and does nothing more when repeated. */
export const ARRANGE = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
} as const;

/** Direct children of a folder, from the first page's total: one request. */
export async function childCount(ctx: ToolContext, ref: string): Promise<number> {
  return (await ctx.entity.children(ref, { max: 1, signal: ctx.signal })).total;
}
