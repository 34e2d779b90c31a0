import type { IdentifiedFormat } from "../../formats.js";
import { saveGenerationProperties, type TechnicalProperty } from "../characterisation/properties.js";
import type { StoredBlob } from "../content-store.js";
import type { Db } from "../db.js";
import type { EntityRow } from "../entities/types.js";
import { addBitstream, addGeneration, addRepresentation, insertEntity } from "../entities/write.js";
import { prepared } from "../statements.js";

/**
 * Writes of the content chain for uploaded files: a new generation of a content object, and a new
 * access representation of an asset. Each runs inside the caller's transaction (with the event and the
 * action's item), and touches only rows: the blob is already in the content store.
 */

/** An uploaded file as the store records it: its name, what it was identified as, and its blob. */
export interface UploadedFile {
  filename: string;
  format: IdentifiedFormat;
  /** Its technical properties, from characterisation; without them it is characterised when first read. */
  properties?: TechnicalProperty[];
  blob: StoredBlob;
}

/**
 * Adds generation N+1 to a content object holding `file` and makes it the only active one; earlier
 * generations are kept (inactive, still readable and downloadable). Returns the new generation's number.
 */
export function addReplacementGeneration(db: Db, coRef: string, file: UploadedFile, date: string): number {
  const { n } = prepared(db, "SELECT count(*) AS n FROM generations WHERE co_ref = ?").get(coRef) as {
    n: number;
  };
  prepared(db, "UPDATE generations SET active = 0 WHERE co_ref = ? AND active = 1").run(coRef);
  const generationId = addGeneration(db, coRef, {
    // The first generation of a content object is its original; a replacement never is.
    original: n === 0,
    active: true,
    label: file.filename,
    formatGroup: file.format.formatGroup,
    effectiveDate: date,
    formatPuid: file.format.puid,
    formatName: file.format.formatName,
    formatVersion: file.format.formatVersion,
  });
  addBitstream(db, generationId, {
    filename: file.filename,
    mimeType: file.format.mimeType,
    blob: file.blob,
  });
  if (file.properties) saveGenerationProperties(db, generationId, file.properties);
  const { idx } = prepared(db, "SELECT idx FROM generations WHERE id = ?").get(generationId) as {
    idx: number;
  };
  return idx;
}

/**
 * Adds Access representation N+1 to an asset: a new content object (titled with the file name, with
 * the asset's security tag) whose first generation holds `file`. Returns the content object and the
 * representation's number.
 */
export function addAccessRepresentation(
  db: Db,
  asset: Pick<EntityRow, "ref" | "security_tag">,
  name: string,
  file: UploadedFile,
  date: string,
): { co: EntityRow; representation: number } {
  const co = insertEntity(db, {
    type: "CO",
    title: file.filename,
    securityTag: asset.security_tag,
    parentRef: asset.ref,
    created: date,
  });
  addReplacementGeneration(db, co.ref, file, date);
  const representation = addRepresentation(db, asset.ref, "Access", name, [co.ref]);
  return { co, representation };
}
