import type { IdentifiedFormat } from "../formats.js";
import type { TechnicalProperty } from "../store/characterisation/properties.js";
import type { StoredBlob } from "../store/content-store.js";

/**
 * What a package asks for, whatever its kind (a zipped folder, OPEX, XIP): folders and assets with
 * their metadata, and the files that hold their content. Each package kind's reader builds one of
 * these; the ingest then checks it against the store, streams the files into the content store, and
 * creates everything it describes in one transaction. A `problem` on an entity or a file means it
 * (and everything inside it) will not be created; the message says why, naming the file.
 */

export type PackageKind = "zip" | "opex" | "xip";

export type FixityAlgorithm = keyof StoredBlob["fixity"];

export interface DeclaredFixity {
  algorithm: FixityAlgorithm;
  /** Lower-case hex. */
  value: string;
  /** Where the package declared it, for messages (e.g. "photo.jpg.opex"). */
  declaredIn: string;
}

export interface PlannedFile {
  /** Path of the file inside the package. */
  entryPath: string;
  /** The bitstream's Filename. */
  filename: string;
  /** The name the file had in the package (OriginalName). */
  originalName: string;
  fixities: DeclaredFixity[];
  /** The size the package declares (XIP FileSize), checked against the bytes. */
  declaredSize?: number;
  /** Why this file will not be ingested. */
  problem?: string;
  /** Set once its bytes are in the content store. */
  blob?: StoredBlob;
  format?: IdentifiedFormat;
  /** Its technical properties, from characterisation once stored. */
  properties?: TechnicalProperty[];
}

export interface PlannedGeneration {
  original: boolean;
  active: boolean;
  label: string | null;
  effectiveDate: string | null;
  files: PlannedFile[];
}

export interface PlannedIdentifier {
  type: string;
  value: string;
}

export interface PlannedFragment {
  schemaUri: string;
  /** The descriptive metadata document, as a standalone XML document. */
  content: string;
}

/** Where a folder or asset goes: inside one planned in the same package, or the ingest's own target. */
export type PlannedParent =
  | { kind: "planned"; key: string }
  /** The folder the package was sent to (or, with none, the `ref` the package itself names). */
  | { kind: "target"; ref: string | null };

interface PlannedEntity {
  /** Unique within the plan (the package path, or the package's own ref for XIP). */
  key: string;
  /** The ref the package asks for (XIP), kept when it is a UUID not yet in use. */
  ref?: string;
  title: string;
  description: string | null;
  /** Security tag the package declares; absent = the parent's. */
  tag?: string;
  customType: string | null;
  identifiers: PlannedIdentifier[];
  fragments: PlannedFragment[];
  /** Where in the package it was described, for messages. */
  source: string;
  problem?: string;
}

export interface PlannedFolder extends PlannedEntity {
  parent: PlannedParent;
}

export interface PlannedContentObject extends PlannedEntity {
  generations: PlannedGeneration[];
}

export interface PlannedRepresentation {
  type: "Preservation" | "Access";
  name: string | null;
  contentObjects: PlannedContentObject[];
}

export interface PlannedAsset extends PlannedEntity {
  parent: PlannedParent;
  representations: PlannedRepresentation[];
}

/** A file the package's manifests promise but does not hold; reported as a failed item. */
export interface MissingFile {
  path: string;
  message: string;
}

export interface IngestPlan {
  kind: PackageKind;
  /** Parents before their children. */
  folders: PlannedFolder[];
  assets: PlannedAsset[];
  missing: MissingFile[];
  /** Facts worth telling the depositor that fail nothing (files a manifest does not name, ...). */
  notes: string[];
}

/** Every distinct file of an asset, in representation / content object / generation order. */
export function filesOf(asset: PlannedAsset): PlannedFile[] {
  const out = new Set<PlannedFile>();
  for (const r of asset.representations) {
    for (const co of r.contentObjects) {
      for (const g of co.generations) for (const f of g.files) out.add(f);
    }
  }
  return [...out];
}

/** Hex lengths of the fixity algorithms the service computes. */
export const FIXITY_HEX_LENGTH: Record<FixityAlgorithm, number> = {
  MD5: 32,
  SHA1: 40,
  SHA256: 64,
  SHA512: 128,
};

/**
 * The algorithm a package names (`SHA-256`, `SHA256`, `sha1`, `MD5`, ...), or undefined for one this
 * service does not compute.
 */
export function fixityAlgorithm(name: string): FixityAlgorithm | undefined {
  const n = name.trim().toUpperCase().replace(/[-_ ]/g, "");
  return n === "MD5" || n === "SHA1" || n === "SHA256" || n === "SHA512" ? n : undefined;
}

/**
 * A declared fixity, or a problem naming the file: an algorithm this service does not compute, or a
 * value that is not hex of the algorithm's length. Either fails the file (a check that cannot be made
 * must not pass silently).
 */
export function declaredFixity(
  algorithmName: string,
  rawValue: string,
  declaredIn: string,
  file: string,
): DeclaredFixity | { problem: string } {
  const algorithm = fixityAlgorithm(algorithmName);
  if (!algorithm) {
    return {
      problem: `${file}: ${declaredIn} declares a ${JSON.stringify(algorithmName)} fixity, which this service does not check; declare MD5, SHA-1, SHA-256 or SHA-512`,
    };
  }
  const value = rawValue.trim().toLowerCase();
  const length = FIXITY_HEX_LENGTH[algorithm];
  if (!new RegExp(`^[0-9a-f]{${length}}$`).test(value)) {
    return {
      problem: `${file}: ${declaredIn} declares the ${algorithm} fixity ${JSON.stringify(rawValue.slice(0, 140))}, which is not ${length} hexadecimal digits`,
    };
  }
  return { algorithm, value, declaredIn };
}
