import { createHash } from "node:crypto";
import { XMLValidator } from "fast-xml-parser";
import { expect } from "vitest";
import yauzl from "yauzl";
import { parseXmlBody, type XmlNode } from "../../../repository/http/xml-body.js";
import { arr, parseXml, text } from "../entity-xml.js";
import { accepted, type Fetcher, type Progress, settled } from "../writes/structure-helpers.js";

/**
 * Exporting over HTTP, unzipping what comes back (with yauzl, reading the zip's own directory), reading
 * its OPEX manifests by namespace, and reading entities back through the Entity API to compare them.
 */

export const E = "/api/entity";
export const ENTITY_NS = "http://preservica.com/EntityAPI/v7.7";
export const OPEX_NS = "http://www.openpreservationexchange.org/opex/v1.2";

export interface ExportChoice {
  content?: string;
  metadata?: string;
  generations?: string;
  hierarchy?: string;
}

export function exportBody(o: ExportChoice = {}): string {
  return `<?xml version='1.0' encoding='utf-8'?>\n<ExportAction xmlns="${ENTITY_NS}"><IncludeContent>${o.content ?? "Content"}</IncludeContent><IncludeMetadata>${o.metadata ?? "Metadata"}</IncludeMetadata><IncludedGenerations>${o.generations ?? "LatestActive"}</IncludedGenerations><IncludeParentHierarchy>${o.hierarchy ?? "false"}</IncludeParentHierarchy></ExportAction>`;
}

export function postExport(who: Fetcher, path: string, ref: string, body: string): Promise<Response> {
  return who(`${E}/${path}/${ref}/exports`, {
    method: "POST",
    body,
    headers: { "Content-Type": "application/xml;charset=UTF-8" },
  });
}

/** Starts an export, waits for it to end, and returns its progress. */
export async function runExport(
  who: Fetcher,
  path: "structural-objects" | "information-objects",
  ref: string,
  o: ExportChoice = {},
): Promise<Progress & { id: string }> {
  const id = await accepted(await postExport(who, path, ref, exportBody(o)));
  return { id, ...(await settled(who, id, 60_000)) };
}

export async function download(who: Fetcher, id: string): Promise<Buffer> {
  const res = await who(`${E}/actions/exports/${id}/content`);
  if (res.status !== 200) throw new Error(`download of ${id}: ${res.status} ${await res.text()}`);
  expect(res.headers.get("content-type")).toBe("application/zip");
  const body = Buffer.from(await res.arrayBuffer());
  expect(Number(res.headers.get("content-length"))).toBe(body.length);
  return body;
}

export interface Unzipped {
  /** File entries by path, with their bytes. */
  files: Map<string, Buffer>;
  /** Directory entries (without the trailing slash). */
  dirs: Set<string>;
  /** Entry names in zip order. */
  order: string[];
}

/** Reads every entry of a zip through its central directory, checking each entry's CRC (yauzl does). */
export async function unzip(zip: Buffer): Promise<Unzipped> {
  const z = await yauzl.fromBufferPromise(zip, { lazyEntries: true, strictFileNames: true });
  const out: Unzipped = { files: new Map(), dirs: new Set(), order: [] };
  for await (const e of z.eachEntry()) {
    out.order.push(e.fileName);
    if (e.fileName.endsWith("/")) {
      out.dirs.add(e.fileName.slice(0, -1));
      continue;
    }
    const parts: Buffer[] = [];
    for await (const chunk of await z.openReadStreamPromise(e)) parts.push(chunk as Buffer);
    out.files.set(e.fileName, Buffer.concat(parts));
  }
  return out;
}

export interface Manifest {
  root: XmlNode;
  sourceId: string;
  title: string;
  description: string | undefined;
  tag: string;
  identifiers: [string, string][];
  files: { path: string; type: string; size: string | undefined }[];
  folders: string[];
  fixities: { type: string; value: string; path: string | undefined }[];
  events: { date: string; user: string; type: string; action: string }[];
  documents: XmlNode[];
}

/** Every element of the manifest must be in the OPEX namespace (documents inside DescriptiveMetadata aside). */
function allOpex(node: XmlNode, path: string): void {
  expect(node.ns, `${path}: <${node.qname}> is not in the OPEX namespace`).toBe(OPEX_NS);
  if (node.name === "DescriptiveMetadata") return;
  for (const c of node.children) allOpex(c, `${path}/${c.name}`);
}

const kids = (n: XmlNode | undefined, name: string) => n?.children.filter((c) => c.name === name) ?? [];
const kid = (n: XmlNode | undefined, name: string) => kids(n, name)[0];

/** Parses a manifest, checking it is well-formed and namespaced as OPEX 1.2 says. */
export function readManifest(bytes: Buffer, name = "manifest"): Manifest {
  const xml = bytes.toString("utf8");
  expect(XMLValidator.validate(xml), `${name} is not well-formed`).toBe(true);
  const root = parseXmlBody(xml, "an OPEX manifest");
  expect(root.name).toBe("OPEXMetadata");
  allOpex(root, name);
  const transfer = kid(root, "Transfer");
  const props = kid(root, "Properties");
  const manifest = kid(transfer, "Manifest");
  return {
    root,
    sourceId: kid(transfer, "SourceID")?.text ?? "",
    title: kid(props, "Title")?.text ?? "",
    description: kid(props, "Description")?.text,
    tag: kid(props, "SecurityDescriptor")?.text ?? "",
    identifiers: kids(kid(props, "Identifiers"), "Identifier").map((i) => [i.attrs.type ?? "", i.text]),
    files: kids(kid(manifest, "Files"), "File").map((f) => ({
      path: f.text,
      type: f.attrs.type ?? "",
      size: f.attrs.size,
    })),
    folders: kids(kid(manifest, "Folders"), "Folder").map((f) => f.text),
    fixities: kids(kid(transfer, "Fixities"), "Fixity").map((f) => ({
      type: f.attrs.type ?? "",
      value: f.attrs.value ?? "",
      path: f.attrs.path,
    })),
    events: kids(kid(kid(root, "History"), "Events"), "Event").map((e) => ({
      date: e.attrs.date ?? "",
      user: e.attrs.user ?? "",
      type: kid(e, "Type")?.text ?? "",
      action: kid(e, "Action")?.text ?? "",
    })),
    documents: kid(root, "DescriptiveMetadata")?.children ?? [],
  };
}

/**
 * A namespace-aware canonical form of an XML element: `{ns}name`, attributes sorted (namespace
 * declarations aside), trimmed text, children in order. Two documents with the same canonical form
 * say the same thing, whatever prefixes, quoting and declarations their writers chose.
 */
export function canonical(n: XmlNode): string {
  const attrs = Object.entries(n.attrs)
    .map(([k, v]) => {
      const [p, local] = k.includes(":") ? (k.split(":") as [string, string]) : ["", k];
      const ns = p === "" ? "" : (n.scope.get(p) ?? p);
      return `{${ns}}${local}=${JSON.stringify(v)}`;
    })
    .sort();
  const t = n.text.trim();
  return `<{${n.ns}}${n.name}${attrs.map((a) => ` ${a}`).join("")}>${t ? JSON.stringify(t) : ""}${n.children.map(canonical).join("")}</>`;
}

export function canonicalOf(xml: string): string {
  return canonical(parseXmlBody(xml, "an XML document"));
}

export const sha = (alg: string, data: Buffer | string) => createHash(alg).update(data).digest("hex");

// -------------------------------------------------------------------------------------------------
// Reading entities back over HTTP

async function getRoot(who: Fetcher, url: string) {
  const path = url.replace(/^https?:\/\/[^/]+/, "");
  const res = await who(path);
  const body = await res.text();
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${body}`);
  return { root: parseXml(body).root, body };
}

export interface FileInfo {
  filename: string;
  size: number;
  fixity: Record<string, string>;
  sha256: string;
}

export interface EntityInfo {
  ref: string;
  type: "SO" | "IO";
  title: string;
  description: string;
  tag: string;
  identifiers: string[];
  /** Canonical forms of the metadata documents, sorted. */
  documents: string[];
  children: EntityInfo[];
  /** Assets: `rep type / CO title / filename` → file. */
  files: Map<string, FileInfo>;
}

const PATHS = { SO: "structural-objects", IO: "information-objects" } as const;

/** A folder or asset and everything under it, read as a client reads it (downloads included). */
export async function readEntity(who: Fetcher, type: "SO" | "IO", ref: string): Promise<EntityInfo> {
  const { root } = await getRoot(who, `${E}/${PATHS[type]}/${ref}`);
  const obj = type === "SO" ? root.StructuralObject : root.InformationObject;
  const info: EntityInfo = {
    ref,
    type,
    title: text(obj.Title),
    description: text(obj.Description),
    tag: text(obj.SecurityTag),
    identifiers: [],
    documents: [],
    children: [],
    files: new Map(),
  };
  const ids = await getRoot(who, `${E}/${PATHS[type]}/${ref}/identifiers?max=1000`);
  info.identifiers = arr(ids.root.Identifiers?.Identifier)
    .map((i) => `${text(i.Type)}=${text(i.Value)}`)
    .sort();
  for (const f of arr(root.AdditionalInformation?.Metadata?.Fragment)) {
    const { body } = await getRoot(who, text(f));
    const doc = parseXmlBody(body, "a metadata reply");
    const content = doc.children
      .find((c) => c.name === "MetadataContainer")
      ?.children.find((c) => c.name === "Content");
    const first = content?.children[0];
    if (first) info.documents.push(canonical(first));
  }
  info.documents.sort();
  if (type === "SO") {
    const kidsReply = await getRoot(who, `${E}/structural-objects/${ref}/children?max=1000`);
    for (const c of arr(kidsReply.root.Children?.Child)) {
      info.children.push(await readEntity(who, c["@type"] === "SO" ? "SO" : "IO", c["@ref"]));
    }
    info.children.sort((a, b) => a.title.localeCompare(b.title));
    return info;
  }
  const reps = await getRoot(who, `${E}/information-objects/${ref}/representations`);
  for (const r of arr(reps.root.Representations?.Representation)) {
    const rep = (await getRoot(who, text(r))).root.Representation;
    for (const coRef of arr(rep.ContentObjects?.ContentObject)) {
      const co = (await getRoot(who, `${E}/content-objects/${text(coRef)}`)).root.ContentObject;
      const gens = await getRoot(who, `${E}/content-objects/${text(coRef)}/generations`);
      const active = arr(gens.root.Generations?.Generation).filter((g) => g["@active"] === "true");
      const latest = active.at(-1);
      if (!latest) continue;
      const gen = (await getRoot(who, text(latest))).root;
      for (const b of arr(gen.Bitstreams?.Bitstream)) {
        const bs = (await getRoot(who, text(b))).root;
        const fixity: Record<string, string> = {};
        for (const f of arr(bs.Bitstream.Fixities?.Fixity))
          fixity[text(f.FixityAlgorithmRef)] = text(f.FixityValue);
        const content = await who(text(bs.AdditionalInformation.Content).replace(/^https?:\/\/[^/]+/, ""));
        const bytes = Buffer.from(await content.arrayBuffer());
        info.files.set(`${text(rep.Type)}/${text(co.Title)}/${text(bs.Bitstream.Filename)}`, {
          filename: text(bs.Bitstream.Filename),
          size: Number(text(bs.Bitstream.FileSize)),
          fixity,
          sha256: sha("sha256", bytes),
        });
      }
    }
  }
  return info;
}

export type { Fetcher, Progress };
