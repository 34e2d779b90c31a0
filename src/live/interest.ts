import { assetUri, contentObjectUri, folderUri, ROOT_URI } from "../resources/uris.js";

/**
 * Which resource URIs some client is subscribed to right now, over every subscription of this process
 * (2025 `resources/subscribe` in a session, 2026 `subscriptions/listen` streams). Counted per URI, because
 * two clients may watch the same folder and one leaving must not silence the other.
 *
 * Knowing the interest lets a webhook event cost nothing when nobody watches what it touched, and lets one
 * event reach the URIs derived from an entity (its metadata fragments, its files) without asking the service.
 */
export class Interest {
  private readonly counts = new Map<string, number>();

  add(uris: Iterable<string>): void {
    for (const uri of uris) this.counts.set(uri, (this.counts.get(uri) ?? 0) + 1);
  }

  remove(uris: Iterable<string>): void {
    for (const uri of uris) {
      const n = (this.counts.get(uri) ?? 0) - 1;
      if (n > 0) this.counts.set(uri, n);
      else this.counts.delete(uri);
    }
  }

  get size(): number {
    return this.counts.size;
  }

  has(uri: string): boolean {
    return this.counts.has(uri);
  }

  /**
   * Whether anything that holds entities is watched (the top level, a folder, an asset holding content
   * objects): only then is an entity's parent worth a lookup.
   */
  watchesContainers(): boolean {
    for (const uri of this.counts.keys()) {
      if (uri === ROOT_URI || uri.startsWith(FOLDER_PREFIX) || uri.startsWith(ASSET_PREFIX)) return true;
    }
    return false;
  }

  /**
   * The watched URIs an event on entity `ref` changes: the entity itself (whatever its type), its metadata
   * fragments, and, for a content object, its files. Parents are the caller's (they need a lookup).
   */
  touchedBy(ref: string): string[] {
    const ref64 = encodeURIComponent(ref);
    const exact = [folderUri(ref), assetUri(ref), contentObjectUri(ref)];
    const prefixes = [`preservation://metadata/${ref64}/`, `preservation://bitstream/${ref64}/`];
    const hits = exact.filter((u) => this.counts.has(u));
    for (const uri of this.counts.keys()) if (prefixes.some((p) => uri.startsWith(p))) hits.push(uri);
    return hits;
  }
}

const FOLDER_PREFIX = "preservation://folder/";
const ASSET_PREFIX = "preservation://asset/";
