import type { TechnicalProperty } from "../store/characterisation/properties.js";
import {
  generationProperties,
  isCharacterised,
  saveGenerationProperties,
} from "../store/characterisation/properties.js";
import type { ContentStore } from "../store/content-store.js";
import type { Db } from "../store/db.js";
import type { BitstreamRecord } from "../store/entities/types.js";
import { characteriseStoredBlob } from "./characterise.js";

/**
 * A generation's technical properties, characterising it first if it never was: the seeds store their
 * files in one synchronous transaction (no room for the asynchronous readers) and stores older than
 * schema 14 hold generations from before characterisation, so those are characterised when first read,
 * once, and remembered. Ingest and content replacement characterise as they store.
 */
export async function propertiesOnRead(
  db: Db,
  content: ContentStore,
  generationId: number,
  bitstreams: readonly BitstreamRecord[],
): Promise<TechnicalProperty[]> {
  if (isCharacterised(db, generationId)) return generationProperties(db, generationId);
  const first = bitstreams[0];
  if (!first || !content.has(first.content_sha256)) return [];
  const { properties } = await characteriseStoredBlob(
    content,
    { sha256: first.content_sha256, size: first.size },
    first.filename,
  );
  db.transaction(() => saveGenerationProperties(db, generationId, properties))();
  return properties;
}
