/**
 * OAI-PMH resumption tokens. A token holds the whole request it continues (verb, format, dates, set)
 * and the id of the last entity sent; the next page is "the same selection, after that id". Lists are
 * ordered by entity id, which never changes or gets reused, so a token stays valid for as long as the
 * harvest takes, whatever changes meanwhile: a record changed behind the cursor shows up in the next
 * incremental harvest (its datestamp moved), one ahead of it in this one. Tokens do not expire and carry
 * no rights: every page is filtered by the permissions of whoever presents the token.
 *
 * Wire form: `v1.` + base64url(JSON). Anything else, or a token for another verb, is badResumptionToken.
 */

export type ListVerb = "ListRecords" | "ListIdentifiers" | "ListSets";

export interface ListState {
  verb: ListVerb;
  /** metadataPrefix (records and identifiers only). */
  prefix?: string;
  from?: string;
  until?: string;
  set?: string;
  /** Entity id of the last item sent. */
  after: number;
}

const PREFIX = "v1.";
/** Far above any real token (a deep set path and two dates); longer is junk, refused unread. */
export const MAX_TOKEN_LENGTH = 4000;

export function encodeToken(state: ListState): string {
  return PREFIX + Buffer.from(JSON.stringify(state), "utf8").toString("base64url");
}

/** The state a token holds, or undefined when it is not one of ours for this verb. */
export function decodeToken(token: string, verb: ListVerb): ListState | undefined {
  if (token.length > MAX_TOKEN_LENGTH || !token.startsWith(PREFIX)) return undefined;
  const body = token.slice(PREFIX.length);
  if (!/^[A-Za-z0-9_-]+$/.test(body)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(body, "base64url").toString("utf8"));
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const v = value as Record<string, unknown>;
  if (v.verb !== verb) return undefined;
  if (typeof v.after !== "number" || !Number.isSafeInteger(v.after) || v.after < 0) return undefined;
  const optional = (x: unknown) => x === undefined || typeof x === "string";
  if (!optional(v.prefix) || !optional(v.from) || !optional(v.until) || !optional(v.set)) return undefined;
  if (verb !== "ListSets" && typeof v.prefix !== "string") return undefined;
  const keys = new Set(["verb", "prefix", "from", "until", "set", "after"]);
  if (Object.keys(v).some((k) => !keys.has(k))) return undefined;
  return v as unknown as ListState;
}
