import { tmpdir } from "node:os";

/**
 * An answer's text with what differs from run to run put in words, so an inline snapshot pins everything else
 * (the demo seed is deterministic: refs, titles, sizes, fixity and its events' dates are the same each run).
 * Replaced: the repository's address (a free port), times within two days of now (token and session ends),
 * paging cursors and confirmation tokens (sealed per server), temporary folders.
 */
export function stableText(text: string): string {
  const now = Date.now();
  const twoDays = 2 * 24 * 3600 * 1000;
  return text
    .replace(/http:\/\/127\.0\.0\.1:\d+/g, "<repository>")
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z/g, (iso) =>
      Math.abs(Date.parse(iso) - now) < twoDays ? "<time of this run>" : iso,
    )
    .replace(/cursor "[^"]+"/g, 'cursor "<cursor>"')
    .replace(/confirmation "[^"]+"/g, 'confirmation "<token>"')
    .replaceAll(tmpdir(), "<tmp>")
    .replace(/<tmp>\/([\w-]+?)-[A-Za-z0-9]{6}(?=\/|\b)/g, "<tmp>/$1-XXXXXX");
}
