import {
  type Report,
  type ReportInput,
  type ReportRow,
  type ReportStep,
  WINDOW_PARAMETERS,
} from "./definitions.js";
import { foldWindowEvents } from "./events-window.js";
import { readable } from "./scope.js";

/**
 * Ingest history: day by day (UTC), the ingests in a date window and what they created: folders, assets,
 * content objects, and the bytes of the content objects' original generations. Read from the Ingest
 * events (one per ingest, acting on every entity it created); an entity counts when it is still in the
 * store (live or in the recycle bin) and the user may read it, and an ingest counts on a day when it
 * created at least one such entity. Days without ingests are left out.
 */

interface DayFigures {
  day: string;
  ingests: number;
  folders: number;
  assets: number;
  contentObjects: number;
  bytes: number;
}

/** What the Ingest events of one batch created, per day. */
const CREATED = `SELECT substr(ev.date, 1, 10) AS day, count(DISTINCT ev.id) AS ingests,
         sum(e.type = 'SO') AS folders, sum(e.type = 'IO') AS assets, sum(e.type = 'CO') AS contentObjects,
         coalesce(sum(CASE WHEN e.type = 'CO' THEN (
           SELECT coalesce(sum(b.size), 0) FROM generations g JOIN bitstreams b ON b.generation_id = g.id
            WHERE g.co_ref = e.ref AND g.original = 1) END), 0) AS bytes
    FROM events ev
    JOIN event_actions ea ON ea.event_id = ev.id
    JOIN entities e ON e.ref = ea.entity_ref AND ${readable("e")}
   WHERE ev.id IN (SELECT value FROM json_each(@ids))
   GROUP BY day`;

export const ingestHistory: Report = {
  definition: {
    id: "ingest-history",
    name: "Ingest history",
    description:
      "Day by day (UTC), the ingests between from and to and what they created: folders, assets, content objects and bytes (original generations). Counts entities still in the store that you may read; days without ingests are left out.",
    parameters: WINDOW_PARAMETERS,
    columns: [
      { name: "day", title: "Day (UTC)", type: "date" },
      { name: "ingests", title: "Ingests", type: "integer" },
      { name: "folders", title: "Folders created", type: "integer" },
      { name: "assets", title: "Assets created", type: "integer" },
      { name: "contentObjects", title: "Content objects created", type: "integer" },
      { name: "bytes", title: "Bytes ingested", type: "integer" },
    ],
  },
  *run(input: ReportInput): Generator<ReportStep> {
    const { sums, done, total } = yield* foldWindowEvents<DayFigures>(input, {
      sql: CREATED,
      eventType: "Ingest",
      keyOf: (d) => d.day,
      add: (sum, d) => {
        sum.ingests += d.ingests;
        sum.folders += d.folders;
        sum.assets += d.assets;
        sum.contentObjects += d.contentObjects;
        sum.bytes += d.bytes;
      },
    });
    const rows: ReportRow[] = sums
      .sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0))
      .map((d) => ({ ...d }));
    yield { rows, done, total };
  },
};
