import { inlineableXml, XmlWriter } from "./writer.js";

/**
 * OPEX manifests (Open Preservation Exchange, `.opex` files) written into export packages. Elements
 * follow the OPEX schema's order: Transfer (SourceID, Manifest with Files and Folders, Fixities),
 * Properties (Title, Description, SecurityDescriptor, Identifiers), History (Events), then
 * DescriptiveMetadata holding each metadata document as it is stored. Everything is under the `opex:`
 * prefix, so no default namespace is in scope and an embedded document keeps exactly its own namespaces.
 */

export const OPEX_NS = "http://www.openpreservationexchange.org/opex/v1.2";

/** The OPEX names of the fixity algorithms the service stores (fixities.algorithm). */
const FIXITY_NAMES: Record<string, string> = {
  MD5: "MD5",
  SHA1: "SHA-1",
  SHA256: "SHA-256",
  SHA512: "SHA-512",
};

export function opexFixityName(algorithm: string): string {
  return FIXITY_NAMES[algorithm.toUpperCase()] ?? algorithm;
}

export interface ManifestFile {
  /** Path relative to the folder the manifest describes (for a PAX asset: to the PAX folder). */
  path: string;
  type: "content" | "metadata";
  size?: number;
}

export interface ManifestFixity {
  type: string;
  value: string;
  /** The file inside a PAX asset the fixity belongs to, relative to the PAX folder (OPEX 1.2). */
  path?: string;
}

export interface ManifestEvent {
  date: string;
  user: string;
  type: string;
  action: string;
  detail: string | null;
}

export interface OpexManifest {
  /** The entity's reference in this service, so a consumer can match it (Transfer/SourceID). */
  sourceId: string;
  title: string;
  description: string | null;
  securityDescriptor: string;
  identifiers: { type: string; value: string }[];
  files: ManifestFile[];
  folders: string[];
  fixities: ManifestFixity[];
  /** Present with MetadataWithEvents. */
  events?: ManifestEvent[];
  /** Stored metadata documents; present unless NoMetadata. */
  documents?: string[];
}

/**
 * The manifest as XML. A stored document that is not well-formed XML cannot be embedded; those are
 * returned in `skipped` (their index in `documents`) for the caller to report.
 */
export function opexManifestDocument(m: OpexManifest): { xml: string; skipped: number[] } {
  const w = new XmlWriter().open("opex:OPEXMetadata", { "xmlns:opex": OPEX_NS });
  w.open("opex:Transfer").leaf("opex:SourceID", m.sourceId);
  if (m.files.length > 0 || m.folders.length > 0) {
    w.open("opex:Manifest");
    if (m.files.length > 0) {
      w.open("opex:Files");
      for (const f of m.files) w.leaf("opex:File", f.path, { type: f.type, size: f.size });
      w.close("opex:Files");
    }
    if (m.folders.length > 0) {
      w.open("opex:Folders");
      for (const f of m.folders) w.leaf("opex:Folder", f);
      w.close("opex:Folders");
    }
    w.close("opex:Manifest");
  }
  if (m.fixities.length > 0) {
    w.open("opex:Fixities");
    for (const f of m.fixities) w.leaf("opex:Fixity", "", { type: f.type, value: f.value, path: f.path });
    w.close("opex:Fixities");
  }
  w.close("opex:Transfer");

  w.open("opex:Properties").leaf("opex:Title", m.title);
  if (m.description) w.leaf("opex:Description", m.description);
  w.leaf("opex:SecurityDescriptor", m.securityDescriptor);
  if (m.identifiers.length > 0) {
    w.open("opex:Identifiers");
    for (const i of m.identifiers) w.leaf("opex:Identifier", i.value, { type: i.type });
    w.close("opex:Identifiers");
  }
  w.close("opex:Properties");

  if (m.events && m.events.length > 0) {
    w.open("opex:History").open("opex:Events");
    for (const e of m.events) {
      w.open("opex:Event", { date: e.date, user: e.user })
        .leaf("opex:Type", e.type)
        .leaf("opex:Action", e.action)
        .opt("opex:Detail", e.detail)
        .close("opex:Event");
    }
    w.close("opex:Events").close("opex:History");
  }

  const skipped: number[] = [];
  const inline = (m.documents ?? []).flatMap((d, i) => {
    const x = inlineableXml(d);
    if (x === undefined) skipped.push(i);
    return x === undefined ? [] : [x];
  });
  if (inline.length > 0) {
    w.open("opex:DescriptiveMetadata");
    for (const x of inline) w.raw(x);
    w.close("opex:DescriptiveMetadata");
  }
  return { xml: w.close("opex:OPEXMetadata").toString(), skipped };
}
