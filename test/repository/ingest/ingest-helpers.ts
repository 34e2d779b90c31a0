import { createHash } from "node:crypto";
import yazl from "yazl";
import type { Db } from "../../../repository/store/db.js";
import { arr, parseXml, text } from "../entity-xml.js";
import { accepted, type Fetcher, type Progress, settled } from "../writes/structure-helpers.js";

/** Building packages (with yazl), uploading them, and reading what an ingest made back over HTTP. */

export const E = "/api/entity";

export interface ZipItem {
  name: string;
  data?: string | Buffer;
  /** A directory entry. */
  dir?: boolean;
  /** Unix mode (file type bits included), e.g. 0o120777 for a symbolic link. */
  mode?: number;
  compress?: boolean;
}

/** A zip of the items, in order, as one buffer. */
export async function buildZip(items: ZipItem[]): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const it of items) {
    if (it.dir) zip.addEmptyDirectory(it.name);
    else {
      zip.addBuffer(Buffer.from(it.data ?? ""), it.name, {
        compress: it.compress ?? true,
        ...(it.mode !== undefined ? { mode: it.mode } : {}),
      });
    }
  }
  zip.end();
  const parts: Buffer[] = [];
  for await (const chunk of zip.outputStream) parts.push(chunk as Buffer);
  return Buffer.concat(parts);
}

/**
 * Renames an entry in a built zip by rewriting its name bytes (local header and central directory)
 * in place; `to` must have the same length. yazl refuses unsafe names, so this is how a test makes a
 * zip-slip package.
 */
export function renameInZip(zip: Buffer, from: string, to: string): Buffer {
  const a = Buffer.from(from);
  const b = Buffer.from(to);
  if (a.length !== b.length) throw new Error("renameInZip: names must have the same length");
  const out = Buffer.from(zip);
  let at = out.indexOf(a);
  let n = 0;
  while (at >= 0) {
    b.copy(out, at);
    n++;
    at = out.indexOf(a, at + b.length);
  }
  if (n === 0) throw new Error(`renameInZip: ${from} not found`);
  return out;
}

export const hash = (alg: string, data: string | Buffer) => createHash(alg).update(data).digest("hex");

export function uploadPackage(
  who: Fetcher,
  folder: string,
  body: Buffer,
  headers: Record<string, string> = {},
  prefix = E,
): Promise<Response> {
  return who(`${prefix}/structural-objects/${folder}`, {
    method: "POST",
    body,
    headers: { "Content-Type": "application/octet-stream", ...headers },
  });
}

/** Uploads a package, expects 202 with a progress token, and waits for the ingest to end. */
export async function ingest(
  who: Fetcher,
  folder: string,
  zip: Buffer,
  headers: Record<string, string> = {},
): Promise<Progress & { id: string }> {
  const id = await accepted(await uploadPackage(who, folder, zip, headers));
  return { id, ...(await settled(who, id, 60_000)) };
}

/** The errors a progress reply lists (failed items' messages). */
export async function progressErrors(who: Fetcher, id: string): Promise<string[]> {
  const res = await who(`${E}/progress/${id}`);
  return arr(parseXml(await res.text()).root.Errors?.Error).map((e) => text(e));
}

export interface ChildInfo {
  ref: string;
  type: string;
  title: string;
}

/** Children of a folder by title. */
export async function children(who: Fetcher, folder: string): Promise<Map<string, ChildInfo>> {
  const res = await who(`${E}/structural-objects/${folder}/children?max=1000`);
  const body = await res.text();
  if (res.status !== 200) throw new Error(`children of ${folder}: ${res.status} ${body}`);
  const out = new Map<string, ChildInfo>();
  for (const c of arr(parseXml(body).root.Children?.Child)) {
    out.set(c["@title"], { ref: c["@ref"], type: c["@type"], title: c["@title"] });
  }
  return out;
}

async function xmlAt(who: Fetcher, url: string) {
  const path = url.replace(/^https?:\/\/[^/]+/, "");
  const res = await who(path);
  const body = await res.text();
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${body}`);
  return parseXml(body).root;
}

export interface BitstreamInfo {
  filename: string;
  originalName: string;
  size: number;
  fixity: Record<string, string>;
  bytes: Buffer;
}

export interface GenerationInfo {
  original: boolean;
  active: boolean;
  puid: string;
  formatName: string;
  bitstreams: BitstreamInfo[];
}

export interface ContentObjectInfo {
  ref: string;
  title: string;
  tag: string;
  generations: GenerationInfo[];
}

export interface AssetInfo {
  ref: string;
  title: string;
  description: string;
  tag: string;
  parent: string;
  representations: { type: string; name: string; contentObjects: ContentObjectInfo[] }[];
}

/** An asset read the way a client reads it, following the URLs the service hands out, downloads included. */
export async function readAsset(who: Fetcher, ref: string): Promise<AssetInfo> {
  const io = await xmlAt(who, `${E}/information-objects/${ref}`);
  const reps = await xmlAt(who, `${E}/information-objects/${ref}/representations`);
  const representations: AssetInfo["representations"] = [];
  for (const r of arr(reps.Representations?.Representation)) {
    const rep = await xmlAt(who, text(r));
    const contentObjects: ContentObjectInfo[] = [];
    for (const coRef of arr(rep.Representation.ContentObjects?.ContentObject)) {
      const co = await xmlAt(who, `${E}/content-objects/${text(coRef)}`);
      const gens = await xmlAt(who, `${E}/content-objects/${text(coRef)}/generations`);
      const generations: GenerationInfo[] = [];
      for (const g of arr(gens.Generations?.Generation)) {
        const gen = await xmlAt(who, text(g));
        const bitstreams: BitstreamInfo[] = [];
        for (const b of arr(gen.Bitstreams?.Bitstream)) {
          const bs = await xmlAt(who, text(b));
          const fixity: Record<string, string> = {};
          for (const f of arr(bs.Bitstream.Fixities?.Fixity))
            fixity[text(f.FixityAlgorithmRef)] = text(f.FixityValue);
          const content = await who(text(bs.AdditionalInformation.Content).replace(/^https?:\/\/[^/]+/, ""));
          bitstreams.push({
            filename: text(bs.Bitstream.Filename),
            // Absent where it would only repeat Filename (as on real 6.3 services).
            originalName: text(bs.Bitstream.OriginalName) || text(bs.Bitstream.Filename),
            size: Number(text(bs.Bitstream.FileSize)),
            fixity,
            bytes: Buffer.from(await content.arrayBuffer()),
          });
        }
        const format = arr(gen.Generation.Formats?.Format)[0];
        generations.push({
          original: gen.Generation["@original"] === "true",
          active: gen.Generation["@active"] === "true",
          puid: text(format?.PUID),
          formatName: text(format?.FormatName),
          bitstreams,
        });
      }
      contentObjects.push({
        ref: text(coRef),
        title: text(co.InformationObject?.Title ?? co.ContentObject?.Title),
        tag: text(co.ContentObject?.SecurityTag),
        generations,
      });
    }
    representations.push({
      type: text(rep.Representation.Type),
      name: text(rep.Representation.Name),
      contentObjects,
    });
  }
  return {
    ref,
    title: text(io.InformationObject.Title),
    description: text(io.InformationObject.Description),
    tag: text(io.InformationObject.SecurityTag),
    parent: text(io.InformationObject.Parent),
    representations,
  };
}

/** The entity's identifiers as [type, value] pairs. */
export async function identifiersOf(who: Fetcher, path: string, ref: string): Promise<[string, string][]> {
  const r = await xmlAt(who, `${E}/${path}/${ref}/identifiers`);
  return arr(r.Identifiers?.Identifier).map((i) => [text(i.Type), text(i.Value)]);
}

/** The entity's metadata fragments' schema URIs and documents (as returned by the Entity API). */
export async function fragmentsOf(
  who: Fetcher,
  path: string,
  ref: string,
): Promise<{ schema: string; xml: string }[]> {
  const e = await xmlAt(who, `${E}/${path}/${ref}`);
  const out: { schema: string; xml: string }[] = [];
  for (const f of arr(e.AdditionalInformation?.Metadata?.Fragment)) {
    const res = await who(text(f).replace(/^https?:\/\/[^/]+/, ""));
    out.push({ schema: f["@schema"], xml: await res.text() });
  }
  return out;
}

/** Row counts of the tables an ingest writes entities into (to prove nothing was created). */
export function entityTableCounts(db: Db): Record<string, number> {
  const tables = [
    "entities",
    "representations",
    "generations",
    "bitstreams",
    "fixities",
    "identifiers",
    "metadata_fragments",
    "events",
    "event_actions",
  ];
  return Object.fromEntries(
    tables.map((t) => [t, (db.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n]),
  );
}

/**
 * A hash of every table but the action bookkeeping (and the login tables), to prove that a refused or
 * failed ingest created nothing: its own action row and item are all it may leave.
 */
export function storeHashWithoutActions(db: Db): string {
  const h = createHash("sha256");
  const tables = db
    .prepare(
      `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'entity_fts_%'
         AND name NOT IN ('tokens', 'users', 'challenges', 'actions', 'action_items') ORDER BY name`,
    )
    .all() as { name: string }[];
  for (const { name } of tables) {
    h.update(`\n#${name}\n`);
    const cols = name === "entity_fts" ? "rowid, *" : "*";
    for (const row of db
      .prepare(`SELECT ${cols} FROM "${name}" ORDER BY ${name === "entity_fts" ? "rowid" : "1"}`)
      .iterate()) {
      h.update(JSON.stringify(row));
    }
  }
  return h.digest("hex");
}

/** Sets a flag bit of every entry's general-purpose flags (local headers and central directory). */
export function setZipFlag(zip: Buffer, bit: number): Buffer {
  const out = Buffer.from(zip);
  for (const [sig, offset] of [
    [0x04034b50, 6],
    [0x02014b50, 8],
  ] as const) {
    const marker = Buffer.alloc(4);
    marker.writeUInt32LE(sig);
    for (let at = out.indexOf(marker); at >= 0; at = out.indexOf(marker, at + 4)) {
      out.writeUInt16LE(out.readUInt16LE(at + offset) | bit, at + offset);
    }
  }
  return out;
}
