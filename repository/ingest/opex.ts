import { standaloneXml, type XmlNode } from "../http/xml-body.js";
import { baseName, dirName, joinPath } from "./entry-names.js";
import { fileAsset, folderOf } from "./plain.js";
import {
  declaredFixity,
  type IngestPlan,
  type MissingFile,
  type PlannedAsset,
  type PlannedContentObject,
  type PlannedFile,
  type PlannedFolder,
  type PlannedFragment,
  type PlannedGeneration,
  type PlannedIdentifier,
  type PlannedParent,
  type PlannedRepresentation,
} from "./plan.js";
import { fieldText, parsePackageXml } from "./xml.js";
import type { PackageEntry, ZipPackage } from "./zip.js";

/**
 * OPEX packages (Open Preservation Exchange): folders and files as in a plain zip, described by `.opex`
 * manifests. A file's manifest sits beside it (`photo.jpg.opex`), a folder's inside it
 * (`Letters/Letters.opex`). Read from each manifest: Properties (Title, Description,
 * SecurityDescriptor, Identifiers/Identifier with its type), Transfer/Fixities/Fixity (type, value,
 * and path inside a PAX asset) checked against the bytes, Transfer/Manifest (Files/File,
 * Folders/Folder: what a folder promises to hold; anything promised and absent fails as an item),
 * and DescriptiveMetadata (each child element becomes a metadata fragment of its own namespace).
 * A folder named `*.pax` is an asset (Preservation Asset eXchange): `Representation_Preservation/` and
 * `Representation_Access/` hold one content object per file, or per sub-folder of files (with
 * `Generation_<n>/` folders in it when it has several generations: the last one is the active one).
 */

export const OPEX_NAMESPACE_PREFIX = "http://www.openpreservationexchange.org/opex/";
/** Preservica's own bookkeeping fragment in exported OPEX; it is not descriptive metadata. */
const LEGACY_XIP_NAMESPACE = "http://preservica.com/LegacyXIP";
/** Largest manifest read. */
export const MAX_MANIFEST_BYTES = 16 * 1024 * 1024;

interface OpexFixity {
  type: string;
  value: string;
  path?: string;
}

export interface OpexManifest {
  path: string;
  title?: string;
  description?: string;
  tag?: string;
  identifiers: PlannedIdentifier[];
  fixities: OpexFixity[];
  listedFiles: string[];
  listedFolders: string[];
  fragments: PlannedFragment[];
  problem?: string;
}

export function isManifest(path: string): boolean {
  return path.toLowerCase().endsWith(".opex");
}

/** Reads and parses every `.opex` file of the package (small documents; the facts are kept, not the trees). */
export async function readManifests(pkg: ZipPackage): Promise<Map<string, OpexManifest>> {
  const out = new Map<string, OpexManifest>();
  for (const e of pkg.files()) {
    if (!isManifest(e.path)) continue;
    out.set(e.path, parseManifest(e.path, await pkg.readText(e, MAX_MANIFEST_BYTES)));
  }
  return out;
}

const children = (node: XmlNode | undefined, name: string) =>
  node ? node.children.filter((c) => c.name === name) : [];
const first = (node: XmlNode | undefined, name: string) => node?.children.find((c) => c.name === name);

export function parseManifest(path: string, text: string): OpexManifest {
  const m: OpexManifest = {
    path,
    identifiers: [],
    fixities: [],
    listedFiles: [],
    listedFolders: [],
    fragments: [],
  };
  const root = parsePackageXml(text, path);
  if ("problem" in root) return { ...m, problem: root.problem };
  if (root.name !== "OPEXMetadata" || !root.ns.startsWith(OPEX_NAMESPACE_PREFIX)) {
    return {
      ...m,
      problem: `${path} is not an OPEX manifest: its root element is <${root.name}>${root.ns ? ` in namespace ${root.ns}` : ""}, expected <OPEXMetadata> in ${OPEX_NAMESPACE_PREFIX}v1.x`,
    };
  }
  const props = first(root, "Properties");
  if (props) {
    m.title = fieldText(props, "Title");
    m.description = fieldText(props, "Description");
    m.tag = fieldText(props, "SecurityDescriptor");
    for (const id of children(first(props, "Identifiers"), "Identifier")) {
      const value = id.text.trim();
      if (value !== "") m.identifiers.push({ type: id.attrs.type?.trim() || "Identifier", value });
    }
  }
  const transfer = first(root, "Transfer");
  for (const f of children(first(transfer, "Fixities"), "Fixity")) {
    m.fixities.push({
      type: f.attrs.type ?? "",
      value: f.attrs.value ?? "",
      ...(f.attrs.path ? { path: f.attrs.path } : {}),
    });
  }
  const manifest = first(transfer, "Manifest");
  for (const f of children(first(manifest, "Files"), "File")) {
    // Listed metadata files (other manifests) are not content; only content files are promised.
    if ((f.attrs.type ?? "content").toLowerCase() !== "metadata" && f.text.trim() !== "") {
      m.listedFiles.push(f.text.trim().replace(/\\/g, "/"));
    }
  }
  for (const f of children(first(manifest, "Folders"), "Folder")) {
    if (f.text.trim() !== "") m.listedFolders.push(f.text.trim().replace(/\\/g, "/"));
  }
  for (const doc of first(root, "DescriptiveMetadata")?.children ?? []) {
    if (doc.ns === LEGACY_XIP_NAMESPACE) continue;
    if (doc.ns === "") {
      m.problem = `${path}: the descriptive metadata <${doc.name}> has no namespace; give each document in DescriptiveMetadata its schema's namespace (xmlns="…")`;
      continue;
    }
    m.fragments.push({ schemaUri: doc.ns, content: standaloneXml(doc) });
  }
  return m;
}

/** Copies a manifest's properties and metadata onto the entity it describes. */
function describe(
  e: {
    title: string;
    description: string | null;
    tag?: string;
    identifiers: PlannedIdentifier[];
    fragments: PlannedFragment[];
    problem?: string;
  },
  m: OpexManifest | undefined,
): void {
  if (!m) return;
  if (m.title) e.title = m.title;
  if (m.description) e.description = m.description;
  if (m.tag) e.tag = m.tag;
  e.identifiers.push(...m.identifiers);
  e.fragments.push(...m.fragments);
  if (m.problem && !e.problem) e.problem = m.problem;
}

/** Applies declared fixities to a file; a fixity that cannot be checked fails the file. */
function addFixity(file: PlannedFile, f: OpexFixity, declaredIn: string): void {
  const d = declaredFixity(f.type, f.value, declaredIn, file.entryPath);
  if ("problem" in d) file.problem ??= d.problem;
  else file.fixities.push(d);
}

const PAX_SUFFIX = /\.pax$/i;
const REPRESENTATION_FOLDER = /^Representation_(Preservation|Access)(?:_(\d+))?$/i;
const GENERATION_FOLDER = /^Generation_(\d{1,6})$/i;

export function planOpex(
  pkg: ZipPackage,
  target: string | null,
  manifests: Map<string, OpexManifest>,
): IngestPlan {
  const folderSet = pkg.folders();
  const fileSet = new Set(pkg.files().map((f) => f.path));
  const used = new Set<string>();
  const manifest = (path: string) => {
    const m = manifests.get(path);
    if (m) used.add(path);
    return m;
  };
  /** The PAX asset folder a path lies in (or is), if any. */
  const paxRootOf = (path: string): string | undefined => {
    const parts = path.split("/");
    for (let i = 1; i <= parts.length; i++) {
      const prefix = parts.slice(0, i).join("/");
      if (PAX_SUFFIX.test(parts[i - 1] as string) && folderSet.has(prefix)) return prefix;
    }
    return undefined;
  };
  const parentOf = (path: string): PlannedParent => {
    const dir = dirName(path);
    return dir === "" ? { kind: "target", ref: target } : { kind: "planned", key: dir };
  };
  const missing: MissingFile[] = [];
  const notes: string[] = [];

  const folders: PlannedFolder[] = [];
  for (const path of folderSet) {
    if (paxRootOf(path)) continue;
    const name = baseName(path);
    const folder = folderOf(path, parentOf(path));
    const m = manifest(joinPath(path, `${name}.opex`)) ?? manifest(`${path}.opex`);
    describe(folder, m);
    if (m) {
      for (const f of m.listedFiles) {
        const full = joinPath(path, f);
        if (!fileSet.has(full)) {
          missing.push({
            path: full,
            message: `${full} is listed in the manifest ${m.path} but is not in the package`,
          });
        }
      }
      for (const f of m.listedFolders) {
        const full = joinPath(path, f);
        if (!folderSet.has(full)) {
          missing.push({
            path: `${full}/`,
            message: `Folder ${full} is listed in the manifest ${m.path} but is not in the package`,
          });
        }
      }
    }
    folders.push(folder);
  }

  const assets: PlannedAsset[] = [];
  const paxFiles = new Map<string, PackageEntry[]>();
  for (const e of pkg.files()) {
    if (isManifest(e.path)) continue;
    const pax = paxRootOf(e.path);
    if (pax) {
      const list = paxFiles.get(pax) ?? [];
      list.push(e);
      paxFiles.set(pax, list);
      continue;
    }
    const asset = fileAsset(e, parentOf(e.path));
    const m = manifest(`${e.path}.opex`);
    describe(asset, m);
    const file = asset.representations[0]?.contentObjects[0]?.generations[0]?.files[0] as PlannedFile;
    for (const f of m?.fixities ?? []) addFixity(file, f, m?.path as string);
    if (/\.pax\.zip$/i.test(e.path)) {
      asset.problem = `${e.path} is a zipped PAX asset, which this service does not unpack; send it as a folder named ${e.path.slice(0, -4)}`;
    }
    assets.push(asset);
  }
  for (const path of folderSet) {
    if (paxRootOf(path) !== path) continue;
    assets.push(paxAsset(path, paxFiles.get(path) ?? [], manifest(`${path}.opex`), parentOf(path)));
  }

  const unused = [...manifests.keys()].filter((p) => !used.has(p) && !paxRootOf(p));
  if (unused.length > 0) {
    notes.push(
      `${unused.length} manifest${unused.length === 1 ? "" : "s"} described nothing in the package and ${unused.length === 1 ? "was" : "were"} not used: ${unused.slice(0, 10).join(", ")}${unused.length > 10 ? ", …" : ""}`,
    );
  }
  return { kind: "opex", folders, assets, missing, notes };
}

/**
 * A PAX folder as one asset: each `Representation_Preservation[_N]` / `Representation_Access[_N]`
 * folder is a representation; in it each file is a content object, and each sub-folder is a content
 * object holding the files directly inside it. Fixities come from the PAX's own manifest, each naming
 * its file by `path` (relative to the PAX folder).
 */
function paxAsset(
  root: string,
  entries: PackageEntry[],
  m: OpexManifest | undefined,
  parent: PlannedParent,
): PlannedAsset {
  const asset: PlannedAsset = {
    key: root,
    title: baseName(root).replace(PAX_SUFFIX, ""),
    description: null,
    customType: null,
    identifiers: [],
    fragments: [],
    source: `${root}/`,
    parent,
    representations: [],
  };
  describe(asset, m);
  const reps = new Map<string, PlannedRepresentation>();
  const cos = new Map<string, PlannedContentObject>();
  const generationsOf = new Map<PlannedContentObject, Map<number, PlannedGeneration>>();
  const byRelPath = new Map<string, PlannedFile>();
  for (const e of entries) {
    if (isManifest(e.path)) continue;
    const rel = e.path.slice(root.length + 1);
    const parts = rel.split("/");
    const repMatch = REPRESENTATION_FOLDER.exec(parts[0] as string);
    const genMatch = parts.length === 4 ? GENERATION_FOLDER.exec(parts[2] as string) : null;
    if (!repMatch || parts.length < 2 || (parts.length === 4 && !genMatch) || parts.length > 4) {
      asset.problem ??= `${e.path}: inside a PAX asset, files go in Representation_Preservation/ or Representation_Access/, directly (one content object each) or in one folder per content object (optionally with Generation_<n>/ folders in it)`;
      continue;
    }
    const repFolder = parts[0] as string;
    let rep = reps.get(repFolder);
    if (!rep) {
      const type = (repMatch[1] as string).toLowerCase() === "access" ? "Access" : "Preservation";
      rep = { type, name: repMatch[2] ? `${type} ${repMatch[2]}` : null, contentObjects: [] };
      reps.set(repFolder, rep);
    }
    const name = parts[parts.length - 1] as string;
    const coKey = parts.length >= 3 ? `${root}/${repFolder}/${parts[1]}` : e.path;
    let co = cos.get(coKey);
    if (!co) {
      co = {
        key: coKey,
        title: parts.length >= 3 ? (parts[1] as string) : name,
        description: null,
        customType: null,
        identifiers: [],
        fragments: [],
        source: coKey,
        generations: [],
      };
      cos.set(coKey, co);
      generationsOf.set(co, new Map());
      rep.contentObjects.push(co);
    }
    const gens = generationsOf.get(co) as Map<number, PlannedGeneration>;
    const n = genMatch ? Number(genMatch[1]) : 0;
    let gen = gens.get(n);
    if (!gen) {
      gen = { original: true, active: true, label: name, effectiveDate: null, files: [] };
      gens.set(n, gen);
    }
    const file: PlannedFile = { entryPath: e.path, filename: name, originalName: name, fixities: [] };
    gen.files.push(file);
    byRelPath.set(rel, file);
  }
  // Generations in number order: the first is the original, the last the active one.
  for (const [co, gens] of generationsOf) {
    co.generations = [...gens.entries()].sort((a, b) => a[0] - b[0]).map(([, g]) => g);
    co.generations.forEach((g, i) => {
      g.original = i === 0;
      g.active = i === co.generations.length - 1;
    });
  }
  for (const f of m?.fixities ?? []) {
    const path = f.path?.replace(/\\/g, "/").replace(/^\.\//, "");
    const file = path === undefined ? undefined : byRelPath.get(path);
    if (file) addFixity(file, f, m?.path as string);
    else {
      asset.problem ??= `${m?.path}: a fixity is declared for ${path === undefined ? "the PAX without a path" : `"${path}"`}, which is not a file of ${root}; give each fixity the path of its file inside the PAX`;
    }
  }
  asset.representations = [...reps.values()].sort((a, b) =>
    a.type === b.type ? 0 : a.type === "Preservation" ? -1 : 1,
  );
  if (asset.representations.length === 0) {
    asset.problem ??= `${root} holds no content files (expected Representation_Preservation/… inside it)`;
  }
  return asset;
}
