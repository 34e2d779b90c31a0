import type { Db } from "../store/db.js";
import { prepared } from "../store/statements.js";
import { walkXml } from "./xml.js";

/**
 * Dublin Core values of an entity's descriptive metadata, kept in `entity_dc_values` so the Content API
 * can filter, facet and return `oai_dc.*` fields without parsing XML at query time.
 * `reindexEntity` (store/entities.ts) calls `indexDublinCore` whenever an entity's fragments change.
 */

export const OAI_DC_SCHEMA = "http://www.openarchives.org/OAI/2.0/oai_dc/";
export const DC_ELEMENTS_NS = "http://purl.org/dc/elements/1.1/";
/** DCMI terms re-declare the fifteen elements; depositors use either namespace. */
const DC_TERMS_NS = "http://purl.org/dc/terms/";

/** The fifteen Dublin Core elements, in their conventional order. */
export const DC_ELEMENTS = [
  "title",
  "creator",
  "subject",
  "description",
  "publisher",
  "contributor",
  "date",
  "type",
  "format",
  "identifier",
  "source",
  "language",
  "relation",
  "coverage",
  "rights",
] as const;
export type DcElement = (typeof DC_ELEMENTS)[number];

const DC_ELEMENT_SET = new Set<string>(DC_ELEMENTS);
/** Longer values are cut: the table serves exact-value filters and facets, not full text (FTS has it). */
const MAX_VALUE_LENGTH = 2000;

export interface DcValue {
  name: DcElement;
  value: string;
}

/** The Dublin Core element values in one XML document, in document order; empty values are skipped. */
export function dublinCoreValues(xml: string): DcValue[] {
  const out: DcValue[] = [];
  walkXml(xml, (el) => {
    if ((el.ns === DC_ELEMENTS_NS || el.ns === DC_TERMS_NS) && DC_ELEMENT_SET.has(el.localName) && el.text) {
      out.push({ name: el.localName as DcElement, value: el.text.slice(0, MAX_VALUE_LENGTH) });
    }
  });
  return out;
}

/**
 * Replaces the Dublin Core rows of one entity. Bulk writers that bypass `reindexEntity` (as they write
 * `entity_fts` themselves) may write the same rows directly: positions count from 0 across the
 * entity's fragments in fragment order.
 */
export function writeDublinCoreValues(db: Db, entityRef: string, values: readonly DcValue[]): void {
  prepared(db, "DELETE FROM entity_dc_values WHERE entity_ref = ?").run(entityRef);
  const insert = prepared(
    db,
    "INSERT INTO entity_dc_values (entity_ref, name, value, position) VALUES (?, ?, ?, ?)",
  );
  values.forEach((v, i) => {
    insert.run(entityRef, v.name, v.value, i);
  });
}

/** Rebuilds the Dublin Core rows of one entity from its stored fragments. */
export function indexDublinCore(db: Db, entityRef: string): void {
  const fragments = prepared(db, "SELECT content FROM metadata_fragments WHERE entity_ref = ? ORDER BY id")
    .pluck()
    .all(entityRef) as string[];
  writeDublinCoreValues(db, entityRef, fragments.flatMap(dublinCoreValues));
}

const checked = new WeakSet<Db>();
const BACKFILL_BATCH = 2000;

/**
 * Fills in the Dublin Core rows of entities whose fragments were written without `reindexEntity`
 * (data directories older than the table, bulk writers that skip it). Runs once per database handle;
 * afterwards `reindexEntity` keeps the table current.
 */
export function ensureDublinCoreIndex(db: Db): void {
  if (checked.has(db)) return;
  checked.add(db);
  const refs = db
    .prepare(
      `SELECT DISTINCT f.entity_ref FROM metadata_fragments f
       WHERE f.content LIKE '%purl.org/dc/%'
         AND NOT EXISTS (SELECT 1 FROM entity_dc_values d WHERE d.entity_ref = f.entity_ref)`,
    )
    .pluck()
    .all() as string[];
  for (let i = 0; i < refs.length; i += BACKFILL_BATCH) {
    db.transaction(() => {
      for (const ref of refs.slice(i, i + BACKFILL_BATCH)) indexDublinCore(db, ref);
    })();
  }
}
