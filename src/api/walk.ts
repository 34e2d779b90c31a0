import type { EntityApi, EntitySummary, Page, PageRequest } from "./entity.js";

/**
 * Helpers over paged lists and the folder tree: iterate a list across pages, walk a subtree with a
 * bounded number of requests in flight, and resolve a title path (`/Archive/Maps/1850`) to a reference.
 */

export interface PaginateOptions {
  pageSize?: number;
  /** Stop after this many items. */
  limit?: number;
  signal?: AbortSignal;
}

/**
 * Every item of a paged list, fetching the next page only when the previous one is used up. Follows the
 * service's `next` URLs (checked to be on the service by the transport); stops on a page that is empty or
 * repeats a `next` it has already followed, so a faulty service cannot make it loop forever.
 */
export async function* paginate<T>(
  fetchPage: (req: PageRequest) => Promise<Page<T>>,
  opts: PaginateOptions = {},
): AsyncGenerator<T, void, undefined> {
  let req: PageRequest = { start: 0, max: opts.pageSize ?? 100, signal: opts.signal };
  const followed = new Set<string>();
  let yielded = 0;
  for (;;) {
    opts.signal?.throwIfAborted();
    const page = await fetchPage(req);
    for (const item of page.items) {
      if (opts.limit !== undefined && yielded >= opts.limit) return;
      yielded++;
      yield item;
    }
    if (!page.next || page.items.length === 0 || followed.has(page.next)) return;
    followed.add(page.next);
    req = { next: page.next, signal: opts.signal };
  }
}

/** Collects an async iterable into an array (for small lists). */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

export interface WalkItem extends EntitySummary {
  /** 1 for the children of the starting folder. */
  depth: number;
  /** The folder the item was listed in (null: the top level). */
  parentRef: string | null;
  /** Titles from below the starting point down to this item. */
  titles: string[];
}

export interface WalkOptions {
  /** Folder listings in flight at once (default 8: the HTTP pool's connections, so none sits idle). */
  concurrency?: number;
  /** Do not list below this depth (1 = the starting folder's children only). */
  maxDepth?: number;
  /** Stop after this many items. */
  limit?: number;
  /** Children per request (default 1000; a service that pages smaller is followed through its `next`). */
  pageSize?: number;
  signal?: AbortSignal;
}

/** Large pages: a folder of 50–200 children is one round trip instead of two, and the service parses less. */
export const DEFAULT_WALK_PAGE_SIZE = 1000;

/** Matches HttpClient's default pool size: more listings in flight would only queue for a connection. */
export const DEFAULT_WALK_CONCURRENCY = 8;

interface Folder {
  ref: string | null;
  depth: number;
  titles: string[];
}

/**
 * Everything below a folder (or below the top level when `ref` is null), breadth-first by discovery,
 * with at most `concurrency` folder listings running at a time. Items arrive as their folder's pages do.
 */
export async function* walkTree(
  entity: EntityApi,
  ref: string | null,
  opts: WalkOptions = {},
): AsyncGenerator<WalkItem, void, undefined> {
  const concurrency = Math.max(1, opts.concurrency ?? DEFAULT_WALK_CONCURRENCY);
  const maxDepth = opts.maxDepth ?? Number.POSITIVE_INFINITY;
  const pageSize = opts.pageSize ?? DEFAULT_WALK_PAGE_SIZE;
  // Both queues are read from a head index: Array#shift on a list of thousands copies it every time.
  const queue: Folder[] = [{ ref, depth: 0, titles: [] }];
  let queueHead = 0;
  let ready: WalkItem[] = [];
  let readyHead = 0;
  let active = 0;
  let failure: { error: unknown } | undefined;
  let stopped = false;
  let wake: (() => void) | undefined;
  const signalReady = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };

  /** Lists one folder page by page (following `next`, as paginate does), handing over each page whole. */
  const listFolder = async (folder: Folder) => {
    const depth = folder.depth + 1;
    let req: PageRequest = { start: 0, max: pageSize, signal: opts.signal };
    const followed = new Set<string>();
    for (;;) {
      opts.signal?.throwIfAborted();
      const page = await entity.children(folder.ref, req);
      if (stopped) return;
      for (const child of page.items) {
        const titles = [...folder.titles, child.title];
        ready.push({
          ref: child.ref,
          type: child.type,
          title: child.title,
          depth,
          parentRef: folder.ref,
          titles,
        });
        if (child.type === "SO" && depth < maxDepth) queue.push({ ref: child.ref, depth, titles });
      }
      pump();
      signalReady();
      if (!page.next || page.items.length === 0 || followed.has(page.next)) return;
      followed.add(page.next);
      req = { next: page.next, signal: opts.signal };
    }
  };

  function pump() {
    while (!stopped && !failure && active < concurrency && queueHead < queue.length) {
      const next = queue[queueHead++] as Folder;
      active++;
      listFolder(next)
        .catch((error: unknown) => {
          failure ??= { error };
        })
        .finally(() => {
          active--;
          pump();
          signalReady();
        });
    }
  }

  pump();
  let yielded = 0;
  try {
    for (;;) {
      if (readyHead < ready.length) {
        if (opts.limit !== undefined && yielded >= opts.limit) return;
        const item = ready[readyHead++] as WalkItem;
        if (readyHead === ready.length) {
          ready = [];
          readyHead = 0;
        }
        yielded++;
        yield item;
        continue;
      }
      if (failure) throw failure.error;
      if (active === 0 && queueHead >= queue.length) return;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  } finally {
    stopped = true;
  }
}

/** A title path that does not lead anywhere; says which level failed and what exists there. */
export class PathNotFoundError extends Error {
  override readonly name = "PathNotFoundError";
  constructor(
    /** The full path asked for. */
    readonly path: string,
    /** 1-based level that failed. */
    readonly level: number,
    readonly segment: string,
    /** The part of the path that was found. */
    readonly found: string[],
    /** Some titles that do exist at that level. */
    readonly available: string[],
    readonly availableTotal: number,
    reason?: string,
  ) {
    const where = found.length ? `in "/${found.join("/")}"` : "at the top level";
    const listing =
      availableTotal === 0
        ? "it holds nothing"
        : `it holds ${availableTotal} item${availableTotal === 1 ? "" : "s"}, e.g. ${available.map((t) => `"${t}"`).join(", ")}`;
    super(reason ?? `No "${segment}" ${where} (level ${level} of "${path}"); ${listing}`);
  }
}

/** Splits `/A/B\/C/D` into ["A", "B/C", "D"]: `\/` is a slash inside a title. */
export function splitTitlePath(path: string): string[] {
  const parts: string[] = [];
  let cur = "";
  for (let i = 0; i < path.length; i++) {
    const ch = path[i];
    if (ch === "\\" && path[i + 1] === "/") {
      cur += "/";
      i++;
    } else if (ch === "/") {
      parts.push(cur);
      cur = "";
    } else {
      cur += ch;
    }
  }
  parts.push(cur);
  return parts.map((p) => p.trim()).filter((p) => p !== "");
}

function same(a: string, b: string): boolean {
  return a.normalize("NFC").trim().toLocaleLowerCase() === b.normalize("NFC").trim().toLocaleLowerCase();
}

const SAMPLE = 8;

/**
 * The entity a title path names, matching each level's title exactly but case-insensitively. Where
 * a title is shared, a folder wins on the way down; a tie that remains is an error naming the refs.
 */
export async function resolveTitlePath(
  entity: EntityApi,
  path: string,
  opts: { signal?: AbortSignal } = {},
): Promise<EntitySummary & { titles: string[] }> {
  const segments = splitTitlePath(path);
  if (segments.length === 0)
    throw new TypeError(`"${path}" names no folder or asset; write it like /Archive/Maps`);
  let parent: string | null = null;
  let current: EntitySummary | undefined;
  const found: string[] = [];
  for (const [i, segment] of segments.entries()) {
    const last = i === segments.length - 1;
    const matches: EntitySummary[] = [];
    const sample: string[] = [];
    let total = 0;
    for await (const child of paginate((req) => entity.children(parent, req), {
      pageSize: 1000,
      signal: opts.signal,
    })) {
      total++;
      if (sample.length < SAMPLE) sample.push(child.title);
      if (same(child.title, segment)) matches.push(child);
    }
    let candidates = matches;
    if (!last && candidates.length > 1) {
      const folders = candidates.filter((c) => c.type === "SO");
      if (folders.length > 0) candidates = folders;
    }
    if (candidates.length === 0) throw new PathNotFoundError(path, i + 1, segment, found, sample, total);
    if (candidates.length > 1) {
      throw new PathNotFoundError(
        path,
        i + 1,
        segment,
        found,
        sample,
        total,
        `"${segment}" is ambiguous at level ${i + 1} of "${path}": ${candidates.length} items share that title (${candidates
          .slice(0, SAMPLE)
          .map((c) => `${c.type} ${c.ref}`)
          .join(", ")}); use a reference instead`,
      );
    }
    current = candidates[0] as EntitySummary;
    found.push(current.title);
    if (!last && current.type !== "SO") {
      throw new PathNotFoundError(
        path,
        i + 2,
        segments[i + 1] as string,
        found,
        [],
        0,
        `"/${found.join("/")}" is an asset, not a folder, so "${segments[i + 1]}" cannot be below it`,
      );
    }
    parent = current.ref;
  }
  return { ...(current as EntitySummary), titles: found };
}
