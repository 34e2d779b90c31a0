import type { ToolContext } from "../context.js";

/** What the structure tools share beyond the confirmed writes' support (support/writes.ts). */

/** Direct children of a folder, from the first page's total: one request. */
export async function childCount(ctx: ToolContext, ref: string): Promise<number> {
  return (await ctx.entity.children(ref, { max: 1, signal: ctx.signal })).total;
}
