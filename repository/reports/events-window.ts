import type { Db } from "../store/db.js";
import type { ReportParameters } from "./definitions.js";

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
