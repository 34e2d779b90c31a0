import type { ToolContext } from "../context.js";

/**
 * The dates the repository's history spans, for answers to a date-filtered question that found nothing:
 * "what changed last week" against a collection whose newest event is months old should say where the
 * events are, not only "nothing". The service lists events oldest first, so two one-event requests give
 * both ends. A failure here only loses the hint.
 */
export async function eventSpan(
  ctx: ToolContext,
): Promise<{ oldest: string; newest: string; total: number } | undefined> {
  try {
    const first = await ctx.entity.events({ start: 0, max: 1, signal: ctx.signal });
    const oldest = first.items[0]?.date;
    if (!oldest || first.total === 0) return undefined;
    const last =
      first.total === 1
        ? first
        : await ctx.entity.events({ start: first.total - 1, max: 1, signal: ctx.signal });
    const newest = last.items[0]?.date ?? oldest;
    return { oldest, newest, total: first.total };
  } catch (err) {
    if (ctx.signal.aborted) throw err;
    ctx.log.debug({ err: (err as Error)?.message }, "event span failed");
    return undefined;
  }
}

/** "Events you may see run from 2023-03-14 to 2026-01-15 (183 in all)." */
export function spanSentence(
  span: { oldest: string; newest: string; total: number },
  what = "Events",
): string {
  return `${what} you may see run from ${span.oldest} to ${span.newest} (${span.total.toLocaleString("en")} in all); ask about a window inside that.`;
}
