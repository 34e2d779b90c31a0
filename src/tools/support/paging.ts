import type { Page } from "../../api/entity.js";

/**
 * A window of a list the service pages oldest first. Newest first (what "recent events" means) needs the
 * total before the window: one tiny request for it, then the window counted from the end, reversed.
 */
export async function windowOf<T>(
  fetchPage: (start: number, max: number) => Promise<Page<T>>,
  offset: number,
  limit: number,
  newestFirst: boolean,
): Promise<{ items: T[]; total: number }> {
  if (!newestFirst) {
    const p = await fetchPage(offset, limit);
    return { items: p.items, total: p.total };
  }
  const probe = await fetchPage(0, 1);
  const end = probe.total - offset;
  if (end <= 0) return { items: [], total: probe.total };
  const start = Math.max(0, end - limit);
  const p = start === 0 && end <= probe.items.length ? probe : await fetchPage(start, end - start);
  return { items: p.items.slice(0, end - start).reverse(), total: p.total };
}

/**
 * Characters one side of a list answer (its structured JSON; the text rendering is no longer) may take: about
 * 4,000 tokens, so text and structured content together stay well under 10,000 tokens whatever `limit` asked.
 */
export const LIST_BUDGET = 16_000;

/**
 * The leading items of a page that fit the budget (always at least one). Callers page on from the last item
 * kept, so nothing is skipped: a cut page just ends early, and `budgetNote` says so.
 */
export function withinBudget<T>(items: readonly T[], budget = LIST_BUDGET): { kept: T[]; cut: number } {
  let used = 0;
  let n = 0;
  for (const item of items) {
    used += JSON.stringify(item).length + 1;
    if (used > budget && n > 0) break;
    n++;
  }
  return { kept: items.slice(0, n), cut: items.length - n };
}

export function budgetNote(cut: number): string {
  return cut > 0
    ? `(This page stops ${cut} early to keep the answer short; the cursor continues from there.)`
    : "";
}
