import type { Db } from "../db.js";
import { prepared } from "../statements.js";

/**
 * Technical properties of generations (schema 14): written once, when the generation's content is
 * characterised (at ingest and content replacement, or on first read for generations stored without it),
 * read for its GenerationResponse.
 */

/** One technical property as `xip:Properties/xip:Property` carries it. */
export interface TechnicalProperty {
  group: string | null;
  puid: string;
  name: string;
  value: string;
}

/** Records a generation's properties (replacing any) and marks it characterised, inside the caller's transaction. */
export function saveGenerationProperties(
  db: Db,
  generationId: number,
  props: readonly TechnicalProperty[],
): void {
  prepared(db, "DELETE FROM generation_properties WHERE generation_id = ?").run(generationId);
  const insert = prepared(
    db,
    `INSERT INTO generation_properties (generation_id, position, property_group, puid, name, value)
     VALUES (?, ?, ?, ?, ?, ?)`,
  );
  props.forEach((p, i) => {
    insert.run(generationId, i + 1, p.group, p.puid, p.name, p.value);
  });
  prepared(db, "UPDATE generations SET characterised = 1 WHERE id = ?").run(generationId);
}

/** A generation's properties in their recorded order. */
export function generationProperties(db: Db, generationId: number): TechnicalProperty[] {
  return prepared(
    db,
    `SELECT property_group AS "group", puid, name, value FROM generation_properties
     WHERE generation_id = ? ORDER BY position`,
  ).all(generationId) as TechnicalProperty[];
}

/** Whether a generation was ever characterised (seeded and older generations were not). */
export function isCharacterised(db: Db, generationId: number): boolean {
  const row = prepared(db, "SELECT characterised FROM generations WHERE id = ?").get(generationId) as
    | { characterised: number }
    | undefined;
  return row?.characterised === 1;
}
