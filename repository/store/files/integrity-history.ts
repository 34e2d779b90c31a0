import type { Db } from "../db.js";
import type { Page } from "../entities/types.js";
import { prepared } from "../statements.js";

/**
 * The integrity-check history of one bitstream, read from what the Integrity Check workflow already
 * records: one action item per bitstream checked, on the content object, whose message begins with
 * `integrityItemPrefix`. The workflow writes its messages with that same function, so the two cannot
 * drift apart.
 */

/** How an Integrity Check item's message names the bitstream it checked. */
export function integrityItemPrefix(bitstreamIdx: number, generationIdx: number, coRef: string): string {
  return `Bitstream ${bitstreamIdx} of generation ${generationIdx} of content object ${coRef}`;
}

export interface IntegrityCheckRecord {
  /** When the check of this bitstream was recorded. */
  date: string;
  success: boolean;
  /** What went wrong (fixity mismatch, file missing, unreadable); null when it passed. */
  reason: string | null;
}

const FROM = `FROM actions a
  JOIN action_items ai ON ai.action_id = a.id AND ai.entity_ref = @co
  WHERE a.kind = 'integrity-check' AND ai.message LIKE @prefix ESCAPE '\\'`;

/** The checks of bitstream `bitstreamIdx` of generation `generationIdx` of `coRef`, newest first. */
export function integrityChecksPage(
  db: Db,
  coRef: string,
  generationIdx: number,
  bitstreamIdx: number,
  start: number,
  max: number,
): Page<IntegrityCheckRecord> {
  // The prefix ends where the message's file name begins (` ("…`), so bitstream 1 is not bitstream 10.
  const prefix = `${integrityItemPrefix(bitstreamIdx, generationIdx, coRef).replace(/[\\%_]/g, "\\$&")} (%`;
  const params = { co: coRef, prefix, start, max };
  const rows = prepared(
    db,
    `SELECT coalesce(ai.recorded, a.completed, a.updated) AS date, ai.outcome, ai.message ${FROM}
     ORDER BY date DESC, a.seq DESC LIMIT @max OFFSET @start`,
  ).all(params) as { date: string; outcome: string; message: string }[];
  const { n } = prepared(db, `SELECT count(*) AS n ${FROM}`).get(params) as { n: number };
  return {
    total: n,
    items: rows.map((r) => ({
      date: r.date,
      success: r.outcome === "done",
      reason: r.outcome === "done" ? null : reasonOf(r.message),
    })),
  };
}

/** The message's text after the bitstream's quoted name: "fixity mismatch: …", "file missing: …". */
function reasonOf(message: string): string {
  const at = message.indexOf('"): ');
  return at < 0 ? message : message.slice(at + 4);
}

/** The name of the adapter the checks read from: the built-in content store. */
export function checkedAdapterName(db: Db): string {
  const row = prepared(
    db,
    "SELECT name FROM storage_adapters WHERE built_in = 1 ORDER BY created LIMIT 1",
  ).get() as { name: string } | undefined;
  return row?.name ?? "Local content store";
}
