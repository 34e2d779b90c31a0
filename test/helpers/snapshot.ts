import { tmpdir } from "node:os";

/**
 * An answer's text with what differs from run to run put in words, so an inline snapshot pins everything else
 * (the demo seed is deterministic: refs, titles, sizes, fixity and its events' dates are the same each run).
 * Replaced: the repository's address (a free port); times from two days ago on, which this run set (token and
 * session ends, a temporary user's expiry a year after the store was made; the seed's own dates are older);
 * paging cursors and confirmation tokens (sealed per server); temporary folders.
 */
export function stableText(text: string): string {
  const thisRun = Date.now() - 2 * 24 * 3600 * 1000;
  return text
    .replace(/http:\/\/127\.0\.0\.1:\d+/g, "<repository>")
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z/g, (iso) =>
      Date.parse(iso) >= thisRun ? "<time set by this run>" : iso,
    )
    .replace(/cursor "[^"]+"/g, 'cursor "<cursor>"')
    .replace(/confirmation "[^"]+"/g, 'confirmation "<token>"')
    .replaceAll(tmpdir(), "<tmp>")
    .replace(/<tmp>\/([\w-]+?)-[A-Za-z0-9]{6}(?=\/|\b)/g, "<tmp>/$1-XXXXXX");
}
