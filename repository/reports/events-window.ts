import type { Db } from "../store/db.js";
import type { ReportInput, ReportParameters, ReportStep } from "./definitions.js";
import { tagsParam } from "./scope.js";

/**
 * The events of a date window, a batch at a time in date order (keyset on date and id, so each batch
 * is one seek on the events' date index, however long the history). Parameters `from` and `to` are UTC
 * instants (absent: unbounded); `user` narrows to one user's events.
 */

const EVENTS_PER_BATCH = 200;

export interface EventBatch {
  ids: number[];
  /** Events in the whole window (for progress). */
  total: number;
}

export function* windowEvents(
  db: Db,
  parameters: ReportParameters,
  type: string | null = null,
): Generator<EventBatch> {
  const filter = {
    from: parameters.from ?? "",
    to: parameters.to ?? "\uffff",
    type,
    user: parameters.user ?? null,
  };
  const where = `date >= @from AND date <= @to AND (@type IS NULL OR type = @type)
    AND (@user IS NULL OR username = @user)`;
  const { total } = db.prepare(`SELECT count(*) AS total FROM events WHERE ${where}`).get(filter) as {
    total: number;
  };
  const page = db.prepare(
    `SELECT id, date FROM events WHERE ${where} AND (date > @afterDate OR (date = @afterDate AND id > @afterId))
      ORDER BY date, id LIMIT @limit`,
  );
  let afterDate = "";
  let afterId = 0;
  for (;;) {
    const rows = page.all({ ...filter, afterDate, afterId, limit: EVENTS_PER_BATCH }) as {
      id: number;
      date: string;
    }[];
    if (rows.length === 0) return;
    yield { ids: rows.map((r) => r.id), total };
    const last = rows[rows.length - 1] as { id: number; date: string };
    afterDate = last.date;
    afterId = last.id;
  }
}

/** What a report folds over its window's events: the query per batch and how its rows add up. */
export interface WindowFold<G> {
  /** Rows for one batch, from `@ids` (a JSON array of event ids) and `@tags` (the caller's readable tags). */
  sql: string;
  /** Only events of this type (e.g. "Ingest"); null = every type. */
  eventType?: string | null;
  /** Rows of different batches with the same key are one row of the report. */
  keyOf(row: G): string;
  /** Adds a later batch's row into the sum so far. */
  add(sum: G, row: G): void;
}

/**
 * Runs `fold.sql` over the window's events a batch at a time, adding up rows of the same key across
 * batches, and yields progress after each batch. Returns the summed rows (in first-seen order) and the
 * final progress, for the report's last step.
 */
export function* foldWindowEvents<G extends object>(
  input: ReportInput,
  fold: WindowFold<G>,
): Generator<ReportStep, { sums: G[]; done: number; total: number }> {
  const { db } = input;
  const tags = tagsParam(input.readableTags);
  const query = db.prepare(fold.sql);
  const sums = new Map<string, G>();
  let done = 0;
  let total = 0;
  for (const batch of windowEvents(db, input.parameters, fold.eventType ?? null)) {
    total = batch.total;
    for (const row of query.all({ ids: JSON.stringify(batch.ids), tags }) as G[]) {
      const key = fold.keyOf(row);
      const sum = sums.get(key);
      if (!sum) sums.set(key, { ...row });
      else fold.add(sum, row);
    }
    done += batch.ids.length;
    yield { done, total };
  }
  return { sums: [...sums.values()], done, total };
}
