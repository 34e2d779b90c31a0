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
