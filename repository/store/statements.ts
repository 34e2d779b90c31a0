import type { Db, Statement } from "./db.js";

/**
 * Prepared statements cached per database by SQL text (preparing costs more than many a query on the
 * hot paths). Search SQL varies only with the shape of a
 * request (which filters, which sort), not its values, so a small cache covers real traffic; the
 * bound keeps a client that invents endless shapes from growing it without limit.
 */
const MAX_CACHED = 256;
const caches = new WeakMap<Db, Map<string, Statement>>();

export function prepared(db: Db, sql: string): Statement {
  let cache = caches.get(db);
  if (!cache) {
    cache = new Map();
    caches.set(db, cache);
  }
  let stmt = cache.get(sql);
  if (!stmt) {
    if (cache.size >= MAX_CACHED) cache.clear();
    stmt = db.prepare(sql);
    cache.set(sql, stmt);
  }
  return stmt;
}

/** One page of a list, and how many the whole list holds. */
export interface Page<T> {
  items: T[];
  total: number;
}

/**
 * One page of a list and the total, from a page query and its count twin (`SELECT count(*) AS n …`).
 * Both take the same named parameters (the page query also `@start` and `@max`), so the total counts
 * exactly what is paged.
 */
export function pageOf<T>(
  db: Db,
  page: string,
  count: string,
  params: Record<string, unknown>,
  start: number,
  max: number,
): Page<T> {
  return {
    items: prepared(db, page).all({ ...params, start, max }) as T[],
    total: (prepared(db, count).get(params) as { n: number }).n,
  };
}
