import { isUuid } from "../http/params.js";
import { standaloneXml, type XmlNode } from "../http/xml-body.js";
import { baseName, dirName, joinPath } from "./entry-names.js";
import {
  declaredFixity,
  type IngestPlan,
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
import { fieldText } from "./xml.js";
import type { ZipPackage } from "./zip.js";

/**
 * XIP packages, as clients build them (pyPreservica's simple/complex/multi asset packages, SIP
 * Creator): an XIP document (`metadata.xml` whose root is `{http://preservica.com/XIP/vX.Y}XIP`, or a
 * `<name>.xip` file) beside a `content/` folder. Read from the document: StructuralObject and
 * InformationObject (Ref, Title, Description, SecurityTag, CustomType, Parent), Representation
 * (InformationObject, Name, Type, ContentObjects/ContentObject), ContentObject (Ref, Title,
 * Description, SecurityTag, CustomType, Parent), Generation (original, active, ContentObject, Label,
 * EffectiveDate, Bitstreams/Bitstream), Bitstream (Filename, FileSize, PhysicalLocation,
 * Fixities/Fixity with FixityAlgorithmRef and FixityValue), Identifier (Type, Value, Entity) and
 * Metadata (schemaUri, Entity, Content/<document>). Links, restrictions and event actions are not read.
 *
 * A generation names its bitstream as `p1/photo.tif` (PhysicalLocation/Filename) or a bare `photo.tif`;
 * the file is looked for under `content/` beside the document (and `<name>/content/` beside a
 * `<name>.xip`), then anywhere in the package when exactly one file has that path ending.
 */

export const XIP_NAMESPACE_PREFIX = "http://preservica.com/XIP/";

export interface XipDocument {
  path: string;
  root: XmlNode;
}

export function isXipRoot(root: XmlNode): boolean {
  return root.name === "XIP" && root.ns.startsWith(XIP_NAMESPACE_PREFIX);
}

interface XipEntity {
  ref: string;
  title?: string;
  description?: string;
  tag?: string;
  customType?: string;
  parent?: string;
}

function entityOf(node: XmlNode): XipEntity {
  return {
    ref: fieldText(node, "Ref") ?? "",
    title: fieldText(node, "Title"),
    description: fieldText(node, "Description"),
    tag: fieldText(node, "SecurityTag"),
    customType: fieldText(node, "CustomType"),
    parent: fieldText(node, "Parent"),
  };
}

interface BitstreamFacts {
  filename: string;
  location: string;
  size?: number;
  fixities: { algorithm: string; value: string }[];
}

const childrenNamed = (node: XmlNode | undefined, name: string) =>
  node ? node.children.filter((c) => c.name === name) : [];

function bitstreamOf(node: XmlNode): BitstreamFacts {
  const rawSize = fieldText(node, "FileSize");
  return {
    filename: fieldText(node, "Filename") ?? "",
    location: (fieldText(node, "PhysicalLocation") ?? "").replace(/\\/g, "/").replace(/^\/+|\/+$/g, ""),
    ...(rawSize !== undefined && /^\d+$/.test(rawSize) ? { size: Number(rawSize) } : {}),
    fixities: childrenNamed(
      node.children.find((c) => c.name === "Fixities"),
      "Fixity",
    ).map((f) => ({
      algorithm: fieldText(f, "FixityAlgorithmRef") ?? "",
      value: fieldText(f, "FixityValue") ?? "",
    })),
  };
}

/** A ref as the store keeps it when the package's own one can be kept (a UUID), else none. */
const keptRef = (ref: string) => (isUuid(ref) ? ref.toLowerCase() : undefined);

export function planXip(pkg: ZipPackage, target: string | null, docs: XipDocument[]): IngestPlan {
  const plan: IngestPlan = { kind: "xip", folders: [], assets: [], missing: [], notes: [] };
  const files = pkg.files();
  const filePaths = new Set(files.map((f) => f.path));
  const byBaseName = new Map<string, string[]>();
  for (const f of files) {
    const name = baseName(f.path);
    byBaseName.set(name, [...(byBaseName.get(name) ?? []), f.path]);
  }
  const used = new Set<string>(docs.map((d) => d.path));
  const planned = new Map<string, PlannedFile>();

  for (const doc of docs) {
    const base = dirName(doc.path);
    const stem = doc.path.toLowerCase().endsWith(".xip") ? baseName(doc.path).slice(0, -4) : undefined;
    const contentDirs = [
      joinPath(base, "content"),
      ...(stem ? [joinPath(base, `${stem}/content`)] : []),
      base,
    ];
    const key = (ref: string) => `${doc.path}#${ref}`;
    const top = doc.root.children;
    const of = (name: string) => top.filter((c) => c.name === name);

    // Identifiers and metadata, by the entity they belong to.
    const identifiers = new Map<string, PlannedIdentifier[]>();
    for (const n of of("Identifier")) {
      const entity = fieldText(n, "Entity") ?? "";
      const type = fieldText(n, "Type");
      const value = fieldText(n, "Value");
      if (!type || !value) continue;
      identifiers.set(entity, [...(identifiers.get(entity) ?? []), { type, value }]);
    }
    const fragments = new Map<string, PlannedFragment[]>();
    const fragmentProblems = new Map<string, string>();
    for (const n of of("Metadata")) {
      const entity = fieldText(n, "Entity") ?? "";
      const document = n.children.find((c) => c.name === "Content")?.children[0];
      if (!document) continue;
      const schemaUri = n.attrs.schemaUri?.trim() || document.ns;
      if (!schemaUri) {
        fragmentProblems.set(
          entity,
          `${doc.path}: the metadata <${document.name}> of ${entity} has no schemaUri and no namespace; give <Metadata> a schemaUri attribute`,
        );
        continue;
      }
      fragments.set(entity, [
        ...(fragments.get(entity) ?? []),
        { schemaUri, content: standaloneXml(document) },
      ]);
    }
    const common = (e: XipEntity, fallbackTitle: string, source: string) => ({
      key: key(e.ref),
      ...(keptRef(e.ref) ? { ref: keptRef(e.ref) } : {}),
      title: e.title ?? fallbackTitle,
      description: e.description ?? null,
      ...(e.tag ? { tag: e.tag } : {}),
      customType: e.customType ?? null,
      identifiers: identifiers.get(e.ref) ?? [],
      fragments: fragments.get(e.ref) ?? [],
      source,
      ...(fragmentProblems.has(e.ref) ? { problem: fragmentProblems.get(e.ref) } : {}),
    });

    const folders = of("StructuralObject").map(entityOf);
    const folderRefs = new Set(folders.map((f) => f.ref));
    const parentOf = (e: XipEntity): PlannedParent =>
      e.parent && folderRefs.has(e.parent)
        ? { kind: "planned", key: key(e.parent) }
        : { kind: "target", ref: target ?? (e.parent ? (keptRef(e.parent) ?? e.parent) : null) };
    for (const f of parentsFirst(folders)) {
      plan.folders.push({
        ...common(f, f.ref || "Untitled folder", `${doc.path} (StructuralObject ${f.ref})`),
        parent: parentOf(f),
      } satisfies PlannedFolder);
    }

    // Bitstream facts by the path a generation names them with, and by bare name when unique.
    const byPath = new Map<string, BitstreamFacts>();
    const byName = new Map<string, BitstreamFacts | null>();
    for (const b of of("Bitstream").map(bitstreamOf)) {
      byPath.set(joinPath(b.location, b.filename), b);
      byName.set(b.filename, byName.has(b.filename) ? null : b);
    }
    const locate = (named: string): string | undefined => {
      for (const dir of contentDirs) {
        const p = joinPath(dir, named);
        if (filePaths.has(p)) return p;
      }
      const ending = (byBaseName.get(baseName(named)) ?? []).filter(
        (p) => p === named || p.endsWith(`/${named}`),
      );
      return ending.length === 1 ? ending[0] : undefined;
    };
    const fileFor = (named: string): PlannedFile => {
      const facts = byPath.get(named) ?? byName.get(baseName(named)) ?? undefined;
      const at = facts ? joinPath(facts.location, facts.filename) : named;
      const entryPath = locate(at) ?? (at !== named ? locate(named) : undefined);
      const existing = entryPath ? planned.get(entryPath) : undefined;
      if (existing) return existing;
      const filename = facts?.filename || baseName(named);
      const file: PlannedFile = {
        entryPath: entryPath ?? at,
        filename,
        originalName: filename,
        fixities: [],
        ...(facts?.size !== undefined ? { declaredSize: facts.size } : {}),
      };
      if (!entryPath) {
        file.problem = `${at}, named by ${doc.path}, is not in the package (looked for it under ${contentDirs.map((d) => `${d || "."}/`).join(" and ")})`;
      } else {
        used.add(entryPath);
        planned.set(entryPath, file);
      }
      for (const f of facts?.fixities ?? []) {
        const d = declaredFixity(f.algorithm, f.value, doc.path, file.entryPath);
        if ("problem" in d) file.problem ??= d.problem;
        else file.fixities.push(d);
      }
      return file;
    };

    const generations = new Map<string, PlannedGeneration[]>();
    for (const g of of("Generation")) {
      const co = fieldText(g, "ContentObject") ?? "";
      const named = childrenNamed(
        g.children.find((c) => c.name === "Bitstreams"),
        "Bitstream",
      )
        .map((b) => b.text.trim().replace(/\\/g, "/"))
        .filter((t) => t !== "");
      generations.set(co, [
        ...(generations.get(co) ?? []),
        {
          original: (g.attrs.original ?? "true").toLowerCase() !== "false",
          active: (g.attrs.active ?? "true").toLowerCase() !== "false",
          label: fieldText(g, "Label") ?? null,
          effectiveDate: fieldText(g, "EffectiveDate") ?? null,
          files: named.map(fileFor),
        },
      ]);
    }

    const contentObjects = new Map<string, XipEntity>(
      of("ContentObject").map((n) => [entityOf(n).ref, entityOf(n)]),
    );
    const representationsOf = new Map<string, XmlNode[]>();
    for (const r of of("Representation")) {
      const io = fieldText(r, "InformationObject") ?? "";
      representationsOf.set(io, [...(representationsOf.get(io) ?? []), r]);
    }

    for (const io of of("InformationObject").map(entityOf)) {
      const asset: PlannedAsset = {
        ...common(io, io.ref || "Untitled asset", `${doc.path} (InformationObject ${io.ref})`),
        parent: parentOf(io),
        representations: [],
      };
      const placed = new Set<string>();
      const plannedCo = (ref: string): PlannedContentObject | undefined => {
        const co = contentObjects.get(ref);
        if (!co) return undefined;
        placed.add(ref);
        const gens = generations.get(ref) ?? [];
        if (gens.length > 0 && !gens.some((g) => g.active))
          (gens[gens.length - 1] as PlannedGeneration).active = true;
        const planned: PlannedContentObject = {
          ...common(co, co.ref, `${doc.path} (ContentObject ${co.ref})`),
          generations: gens,
        };
        if (gens.length === 0) {
          planned.problem ??= `${doc.path}: content object ${co.ref} of asset ${io.ref} has no Generation, so no content`;
        }
        return planned;
      };
      for (const r of representationsOf.get(io.ref) ?? []) {
        const rawType = fieldText(r, "Type") ?? "Preservation";
        const type = rawType.toLowerCase() === "access" ? "Access" : "Preservation";
        if (rawType.toLowerCase() !== type.toLowerCase()) {
          asset.problem ??= `${doc.path}: representation type "${rawType}" of asset ${io.ref} is not one an ingest brings (Preservation or Access)`;
        }
        const rep: PlannedRepresentation = { type, name: fieldText(r, "Name") ?? null, contentObjects: [] };
        const refs = childrenNamed(
          r.children.find((c) => c.name === "ContentObjects"),
          "ContentObject",
        ).map((c) => c.text.trim());
        for (const ref of refs) {
          const co = plannedCo(ref);
          if (co) rep.contentObjects.push(co);
          else
            asset.problem ??= `${doc.path}: representation ${rep.name ?? rep.type} of asset ${io.ref} names content object ${ref}, which the document does not describe`;
        }
        asset.representations.push(rep);
      }
      // Content objects of this asset that no representation names go in a Preservation one.
      const loose = [...contentObjects.values()].filter((co) => co.parent === io.ref && !placed.has(co.ref));
      if (loose.length > 0) {
        let rep = asset.representations.find((r) => r.type === "Preservation");
        if (!rep) {
          rep = { type: "Preservation", name: null, contentObjects: [] };
          asset.representations.unshift(rep);
        }
        for (const co of loose) rep.contentObjects.push(plannedCo(co.ref) as PlannedContentObject);
      }
      if (asset.representations.every((r) => r.contentObjects.length === 0)) {
        asset.problem ??= `${doc.path}: asset ${io.ref} ("${asset.title}") has no content objects, so no content to ingest`;
      }
      plan.assets.push(asset);
    }
  }

  const unnamed = files.filter((f) => !used.has(f.path)).map((f) => f.path);
  if (unnamed.length > 0) {
    plan.notes.push(
      `${unnamed.length} file${unnamed.length === 1 ? "" : "s"} of the package ${unnamed.length === 1 ? "is" : "are"} not named by its XIP document and ${unnamed.length === 1 ? "was" : "were"} not ingested: ${unnamed.slice(0, 10).join(", ")}${unnamed.length > 10 ? ", …" : ""}`,
    );
  }
  return plan;
}

/** Folders ordered so each comes after its parent (when the parent is in the same document). */
function parentsFirst(folders: XipEntity[]): XipEntity[] {
  const byRef = new Map(folders.map((f) => [f.ref, f]));
  const out: XipEntity[] = [];
  const state = new Map<string, "visiting" | "done">();
  const visit = (f: XipEntity) => {
    if (state.get(f.ref) === "done") return;
    if (state.get(f.ref) === "visiting") return; // a cycle: validation finds its parent missing
    state.set(f.ref, "visiting");
    const parent = f.parent ? byRef.get(f.parent) : undefined;
    if (parent) visit(parent);
    state.set(f.ref, "done");
    out.push(f);
  };
  for (const f of folders) visit(f);
  return out;
}
