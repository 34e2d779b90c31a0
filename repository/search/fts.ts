/**
 * Translates what a user types into an FTS5 query that cannot be a syntax error: every term becomes a
 * quoted string (so FTS5 operators and punctuation in user text are inert) and the only operators
 * used are the ones built here.
 *
 * Accepted syntax (documented for the Content API):
 * - words are ANDed: `annual report` finds entities containing both;
 * - `"annual report"` is a phrase;
 * - a trailing `%` or `*` makes a prefix query: `archiv%` finds archive, archives, archiving;
 *   a leading wildcard is dropped (`%port` searches for `port`);
 * - `OR` between two terms: `maps OR charts` (AND binds tighter than OR);
 * - a leading `-` excludes: `maps -draft`;
 * - empty text, `%` or `*` alone means everything.
 *
 * The index is stemmed (FTS5 porter, store migration 004) and FTS5 stems the query's words the same
 * way, so `map` finds maps and mapping, `minutes` finds minute, and a phrase matches the same words in
 * any inflection, in order. A prefix is stemmed too and matches the beginning of stored stems: `archiv%`
 * finds archive, archives and archiving, but a prefix longer than a word's stem (`runn%` for running,
 * stem "run") misses it, as wildcards on a stemmed field do in the real service's search engine.
 */

export type TextQuery =
  /** No text constraint. */
  | { kind: "all" }
  /** Text that contains nothing searchable (only punctuation): matches nothing. */
  | { kind: "none" }
  /** Entities matching `fts`. */
  | { kind: "match"; fts: string }
  /** Entities not matching `fts` (the text held only exclusions). */
  | { kind: "exclude"; fts: string };

/**
 * More quoted strings than this are ignored: a query is a question, not a document. Counted in
 * strings, not words, because an inner wildcard splits a word into several (`a%b%c` is three), and
 * FTS5's time grows faster than linearly with them (3,000 took seconds).
 */
const MAX_TERMS = 32;
const SEARCHABLE = /[\p{L}\p{N}]/u;

interface Term {
  expr: string;
  negate: boolean;
  /** Joined to the previous positive term with OR instead of AND. */
  or: boolean;
}

function quote(text: string): string {
  return `"${text.replaceAll('"', '""')}"`;
}

/** Splits text into quoted phrases and bare words, keeping a leading `-` with its word or phrase. */
function tokens(text: string): string[] {
  return text.match(/-?"[^"]*"?|[^\s"]+/g) ?? [];
}

/** The FTS5 expression of one word or phrase, using at most `budget` quoted strings, and how many it used. */
function termExpr(token: string, budget: number): { expr: string; strings: number } | undefined {
  if (token.startsWith('"')) {
    const inner = token.replace(/^"|"$/g, "").replace(/[%*]/g, " ").trim();
    return SEARCHABLE.test(inner) ? { expr: quote(inner), strings: 1 } : undefined;
  }
  const prefix = /[%*]$/.test(token);
  const parts = token
    .replace(/^[%*]+|[%*]+$/g, "")
    .split(/[%*]+/)
    .filter((p) => SEARCHABLE.test(p))
    .slice(0, budget);
  if (parts.length === 0) return undefined;
  // An inner wildcard splits the word; the last part keeps a trailing wildcard as a prefix query.
  const expr = parts
    .map((p, i) => (prefix && i === parts.length - 1 ? `${quote(p)}*` : quote(p)))
    .join(" AND ");
  return { expr, strings: parts.length };
}

export function toFtsQuery(text: string): TextQuery {
  // Control characters end a string inside FTS5's parser (NUL) or mean nothing; they separate words.
  const trimmed = text.replace(/\p{Cc}/gu, " ").trim();
  if (trimmed === "" || /^[%*]+$/.test(trimmed)) return { kind: "all" };

  const terms: Term[] = [];
  let pendingOr = false;
  let budget = MAX_TERMS;
  for (const raw of tokens(trimmed)) {
    if (raw === "OR") {
      pendingOr = terms.some((t) => !t.negate);
      continue;
    }
    if (raw === "AND") continue;
    const negate = raw.length > 1 && raw.startsWith("-");
    const term = termExpr(negate ? raw.slice(1) : raw, budget);
    if (term === undefined) continue;
    terms.push({ expr: term.expr, negate, or: pendingOr && !negate });
    pendingOr = false;
    budget -= term.strings;
    if (budget <= 0) break;
  }

  const positives = terms.filter((t) => !t.negate);
  const negatives = terms.filter((t) => t.negate).map((t) => t.expr);
  if (positives.length === 0 && negatives.length === 0) return { kind: "none" };
  if (positives.length === 0) return { kind: "exclude", fts: negatives.map((n) => `(${n})`).join(" OR ") };

  let positive = "";
  for (const t of positives) {
    positive = positive === "" ? `(${t.expr})` : `${positive} ${t.or ? "OR" : "AND"} (${t.expr})`;
  }
  if (negatives.length === 0) return { kind: "match", fts: positive };
  return { kind: "match", fts: `(${positive})${negatives.map((n) => ` NOT (${n})`).join("")}` };
}
