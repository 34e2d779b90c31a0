import { byText, type Report, type ReportInput, type ReportRow, type ReportStep } from "./definitions.js";
import { readable, tagsParam } from "./scope.js";

/**
 * Assets by format: for each file format (PRONOM PUID and name, as identified on the generation), how
 * many assets hold it, how many files and how many bytes, counting every bitstream of every active
 * generation of the live content objects of live assets the user may read. Works through the assets in
 * batches (in id order), so each asset is counted in exactly one batch and the distinct-asset counts of
 * the batches add up.
 */

const ASSETS_PER_STEP = 500;

interface Figures {
  puid: string;
  name: string;
  assets: number;
  files: number;
  bytes: number;
}

export const assetsByFormat: Report = {
  definition: {
    id: "assets-by-format",
    name: "Assets by format",
    description:
      "For each file format (PRONOM PUID and name), the assets that hold it, the files and their bytes: every bitstream of every active generation, of the live assets you may read. An empty PUID means the format was not identified.",
    parameters: [],
    columns: [
      { name: "formatPuid", title: "Format PUID", type: "string" },
      { name: "formatName", title: "Format name", type: "string" },
      { name: "assets", title: "Assets", type: "integer" },
      { name: "files", title: "Files", type: "integer" },
      { name: "bytes", title: "Bytes", type: "integer" },
    ],
  },
  *run(input: ReportInput): Generator<ReportStep> {
    const { db } = input;
    const tags = tagsParam(input.readableTags);
    // The unary + keeps SQLite from answering through the visibility index (type, tag), which would sort
    // every asset for each batch: batches walk the table in id order instead, each one a range of rowids.
    const assetScope = `+io.type = 'IO' AND +io.deleted = 0 AND ${readable("io")}`;
    const { total } = db.prepare(`SELECT count(*) AS total FROM entities io WHERE ${assetScope}`).get({
      tags,
    }) as { total: number };
    // The id of the last asset of the next batch: the batch is every asset in (after, upTo].
    const batchEnd = db.prepare(
      `SELECT max(id) AS upTo, count(*) AS n FROM (
         SELECT io.id FROM entities io WHERE io.id > @after AND ${assetScope} ORDER BY io.id LIMIT @limit)`,
    );
    const figures = db.prepare(
      `SELECT coalesce(g.format_puid, '') AS puid, coalesce(g.format_name, '') AS name,
              count(DISTINCT io.id) AS assets, count(*) AS files, sum(b.size) AS bytes
         FROM entities io
         JOIN entities co INDEXED BY entities_parent ON co.parent_ref = io.ref AND co.type = 'CO' AND co.deleted = 0 AND ${readable("co")}
         JOIN generations g ON g.co_ref = co.ref AND g.active = 1
         JOIN bitstreams b ON b.generation_id = g.id
        WHERE io.id > @after AND io.id <= @upTo AND ${assetScope}
        GROUP BY puid, name`,
    );
    const byFormat = new Map<string, Figures>();
    let after = 0;
    let done = 0;
    for (;;) {
      const batch = batchEnd.get({ after, limit: ASSETS_PER_STEP, tags }) as {
        upTo: number | null;
        n: number;
      };
      if (batch.upTo === null) break;
      for (const f of figures.all({ after, upTo: batch.upTo, tags }) as Figures[]) {
        const key = `${f.puid}\u0000${f.name}`;
        const sum = byFormat.get(key);
        if (sum) {
          sum.assets += f.assets;
          sum.files += f.files;
          sum.bytes += f.bytes;
        } else byFormat.set(key, { ...f });
      }
      after = batch.upTo;
      done += batch.n;
      yield { done, total };
    }
    const rows: ReportRow[] = [...byFormat.values()]
      .sort((a, b) => b.bytes - a.bytes || byText(a.puid, b.puid) || byText(a.name, b.name))
      .map((f) => ({
        formatPuid: f.puid,
        formatName: f.name,
        assets: f.assets,
        files: f.files,
        bytes: f.bytes,
      }));
    yield { rows, done, total };
  },
};
