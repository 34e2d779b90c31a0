import type { JsonWebKey } from "node:crypto";

/**
 * The authorization server's signing keys (a JWKS document), fetched once and cached. A token signed with
 * a key id not in the cache makes one more fetch (key rotation), at most once a minute, so a stream of
 * tokens with made-up key ids cannot turn this server into a load on the authorization server.
 */

export type Jwk = JsonWebKey & { kid?: string; use?: string; alg?: string };

/** The keys could not be fetched: this server's problem (or the authorization server's), not the client's. */
export class KeysUnavailable extends Error {
  override readonly name = "KeysUnavailable";
}

export interface JwksOptions {
  url: string;
  /** Least time between two fetches caused by unknown key ids (default 60 s). */
  refetchAfterMs?: number;
  /** Deadline of one fetch (default 5 s). */
  timeoutMs?: number;
  now?: () => number;
}

export class JwksCache {
  private keys: Jwk[] | undefined;
  private fetching: Promise<Jwk[]> | undefined;
  private fetchedAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly opts: JwksOptions) {}

  /** The cached keys, fetching them the first time (concurrent callers share one fetch). */
  async current(): Promise<Jwk[]> {
    return this.keys ?? this.refresh();
  }

  /**
   * Keys again after a token named a key id the cache lacks: fetched afresh only when the last fetch is old
   * enough; otherwise the cache as it is.
   */
  async afterUnknownKid(): Promise<Jwk[]> {
    const now = this.opts.now?.() ?? Date.now();
    if (this.keys && now - this.fetchedAt < (this.opts.refetchAfterMs ?? 60_000)) return this.keys;
    return this.refresh();
  }

  private refresh(): Promise<Jwk[]> {
    this.fetching ??= this.load().finally(() => {
      this.fetching = undefined;
    });
    return this.fetching;
  }

  private async load(): Promise<Jwk[]> {
    let res: Response;
    try {
      // No redirects: the configured URL was checked (https or loopback); a redirect could lead elsewhere.
      res = await fetch(this.opts.url, {
        redirect: "error",
        headers: { accept: "application/json, application/jwk-set+json" },
        signal: AbortSignal.timeout(this.opts.timeoutMs ?? 5000),
      });
    } catch (err) {
      throw new KeysUnavailable(`the signing keys could not be fetched: ${(err as Error).message}`);
    }
    if (!res.ok) throw new KeysUnavailable(`the signing keys could not be fetched: HTTP ${res.status}`);
    let doc: unknown;
    try {
      doc = await res.json();
    } catch {
      throw new KeysUnavailable("the signing keys document is not JSON");
    }
    const keys = (doc as { keys?: unknown })?.keys;
    if (!Array.isArray(keys)) throw new KeysUnavailable('the signing keys document has no "keys" array');
    this.keys = keys.filter((k): k is Jwk => typeof k === "object" && k !== null);
    this.fetchedAt = this.opts.now?.() ?? Date.now();
    return this.keys;
  }
}
