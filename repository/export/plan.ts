import type { ContentStore } from "../store/content-store.js";
import type { Db } from "../store/db.js";
import { fixitiesOf } from "../store/entities/read.js";
import {
  ancestors,
  bitstreamsOfGeneration,
  type ExportEntity,
  type ExportGeneration,
  generationsOf,
  representationContentObjects,
  representationsOf,
  subtree,
} from "../store/export/read.js";
import { type ManifestFixity, opexFixityName } from "../xml/opex-docs.js";
import { contentFileName, folderName, OPEX_SUFFIX, PAX_SUFFIX, SiblingNames } from "./names.js";
import type { ExportOptions } from "./options.js";

/**
 * What an export package will hold, worked out from the store before a byte is written: every folder
 * and asset with its place in the zip, and every content file with its size, blob and fixities.
 *
 * Layout (OPEX 1.2 with PAX asset folders, as Preservica exchanges them):
 * - a folder is a directory named after its title, its manifest inside it: `Letters/Letters.opex`;
 * - an asset is a PAX folder beside its manifest: `Letters/Letter 1.pax/` and `Letters/Letter 1.pax.opex`;
 * - inside a PAX, one folder per representation (`Representation_Preservation`, `Representation_Access`,
 *   `…_2` for a second one of the same type), in it one folder per content object, named after its
 *   title, holding the files of the exported generation under their stored names. When more than one
 *   generation of a content object is exported (AllActive, All), each sits in `Generation_<n>/`;
 * - with the parent hierarchy, the folders above the exported entity enclose it, top-most first.
 * Manifests list what their folder holds (Transfer/Manifest); a PAX manifest carries every file's
 * fixities with the file's path inside the PAX (Transfer/Fixities/Fixity@path, OPEX 1.2).
 */

export interface PlannedFile {
  /** Full path inside the zip. */
  zipPath: string;
  /** Path relative to the PAX folder (as the asset's manifest names it). */
  paxPath: string;
  sha256: string;
  size: number;
  coRef: string;
  fixities: ManifestFixity[];
}

export interface PlannedNode {
  entity: ExportEntity;
  /** "ancestor": a folder above the exported entity, written only to hold it (IncludeParentHierarchy). */
  role: "exported" | "ancestor";
  /** Zip path of the folder (a PAX folder for an asset), e.g. `Council/Minutes/Book 1.pax`. */
  dir: string;
  /** Zip path of the node's manifest. */
  manifestPath: string;
  /** Folders: the direct children as the manifest lists them (names relative to `dir`). */
  childFolders: string[];
  childManifests: string[];
  /** Assets: content files in write order, and every sub-folder of the PAX (relative paths). */
  files: PlannedFile[];
  paxFolders: string[];
  /** Content objects of an asset (their events and tags belong to it). */
  contentObjects: string[];
}

export interface MissingBlob {
  coRef: string;
  message: string;
}

export interface ExportPlan {
  /** Folders and assets in write order (depth first, each before what it holds). */
  nodes: PlannedNode[];
  /** Every entity the package describes (permissions are checked on all of them). */
  scope: ExportScope;
  /** Bitstreams whose bytes are not in the content store: left out, reported as failed items. */
  missing: MissingBlob[];
  files: number;
  bytes: number;
}

/** The generations of a content object an export takes, by IncludedGenerations. */
export function chosenGenerations(gens: ExportGeneration[], which: ExportOptions["includedGenerations"]) {
  if (which === "All") return gens;
  const active = gens.filter((g) => g.active === 1);
  if (which === "AllActive") return active;
  const latest = active.at(-1);
  return latest ? [latest] : [];
}

/** The entities an export of `rootRef` describes: the folders above it (if asked for) and its subtree. */
export interface ExportScope {
  /** Top-most first; empty without IncludeParentHierarchy. */
  ancestors: ExportEntity[];
  /** The exported entity and everything live below it (content objects included), in insertion order. */
  tree: ExportEntity[];
}

export function exportScope(db: Db, rootRef: string, options: ExportOptions): ExportScope {
  return {
    ancestors: options.includeParentHierarchy === "true" ? ancestors(db, rootRef) : [],
    tree: subtree(db, rootRef),
  };
}

/** What the export of `rootRef` writes; `undefined` when the entity is gone. */
export function planExport(
  db: Db,
  content: ContentStore,
  rootRef: string,
  options: ExportOptions,
): ExportPlan | undefined {
  const scope = exportScope(db, rootRef, options);
  const { tree, ancestors: above } = scope;
  // Found by ref: the subtree is in insertion order, and an older folder may have been moved below.
  const root = tree.find((e) => e.ref === rootRef);
  if (!root || root.type === "CO") return undefined;
  const children = new Map<string, ExportEntity[]>();
  for (const e of tree) {
    if (e === root) continue;
    const list = children.get(e.parent_ref as string) ?? [];
    list.push(e);
    children.set(e.parent_ref as string, list);
  }
  const plan: ExportPlan = { nodes: [], scope, missing: [], files: 0, bytes: 0 };
  const withContent = options.includeContent === "Content";

  const addFolder = (e: ExportEntity, dir: string, role: PlannedNode["role"]): PlannedNode => {
    const own = dir.split("/").at(-1) as string;
    const node: PlannedNode = {
      entity: e,
      role,
      dir,
      manifestPath: `${dir}/${own}${OPEX_SUFFIX}`,
      childFolders: [],
      childManifests: [],
      files: [],
      paxFolders: [],
      contentObjects: [],
    };
    plan.nodes.push(node);
    return node;
  };

  const addAsset = (e: ExportEntity, dir: string): void => {
    const node: PlannedNode = {
      entity: e,
      role: "exported",
      dir,
      manifestPath: `${dir}${OPEX_SUFFIX}`,
      childFolders: [],
      childManifests: [],
      files: [],
      paxFolders: [],
      contentObjects: (children.get(e.ref) ?? []).filter((c) => c.type === "CO").map((c) => c.ref),
    };
    plan.nodes.push(node);
    if (!withContent) return;
    const perType = new Map<string, number>();
    for (const rep of representationsOf(db, e.ref)) {
      // Physical representations describe objects on a shelf: there are no files to write.
      const type = { preservation: "Preservation", access: "Access" }[rep.type.toLowerCase()];
      if (!type) continue;
      const n = (perType.get(type) ?? 0) + 1;
      perType.set(type, n);
      const repDir = `Representation_${type}${n > 1 ? `_${n}` : ""}`;
      const coNames = new SiblingNames();
      let repUsed = false;
      for (const co of representationContentObjects(db, rep.id)) {
        const gens = chosenGenerations(generationsOf(db, co.ref), options.includedGenerations);
        if (gens.length === 0) continue;
        const coDir = `${repDir}/${coNames.claim(folderName(co.title, co.ref))}`;
        let coUsed = false;
        for (const g of gens) {
          const genDir = gens.length > 1 ? `${coDir}/Generation_${g.idx}` : coDir;
          const names = new SiblingNames();
          let genUsed = false;
          for (const b of bitstreamsOfGeneration(db, g.id)) {
            const name = names.claim(contentFileName(b.filename, `bitstream-${b.idx}`), true);
            const paxPath = `${genDir}/${name}`;
            if (!content.has(b.content_sha256)) {
              plan.missing.push({
                coRef: co.ref,
                message: `${dir}/${paxPath} was left out: the bytes of bitstream ${b.idx} of generation ${g.idx} of content object ${co.ref} (sha256 ${b.content_sha256}) are missing from the content store`,
              });
              continue;
            }
            node.files.push({
              zipPath: `${dir}/${paxPath}`,
              paxPath,
              sha256: b.content_sha256,
              size: b.size,
              coRef: co.ref,
              fixities: fixitiesOf(db, b.id).map((f) => ({
                type: opexFixityName(f.algorithm),
                value: f.value,
                path: paxPath,
              })),
            });
            plan.files++;
            plan.bytes += b.size;
            genUsed = true;
          }
          if (genUsed && gens.length > 1) node.paxFolders.push(genDir);
          coUsed ||= genUsed;
        }
        if (coUsed) node.paxFolders.push(coDir);
        repUsed ||= coUsed;
      }
      if (repUsed) node.paxFolders.push(repDir);
    }
    node.paxFolders.sort();
  };

  /** Adds `e` (and, for a folder, everything below it) under the folder `parent`, or at the top. */
  const addEntity = (
    e: ExportEntity,
    parentDir: string | null,
    siblings: SiblingNames,
    into?: PlannedNode,
  ) => {
    const prefix = parentDir === null ? "" : `${parentDir}/`;
    if (e.type === "IO") {
      const name = siblings.claim(`${folderName(e.title, e.ref)}${PAX_SUFFIX}`, true);
      siblings.reserve(`${name}${OPEX_SUFFIX}`);
      into?.childFolders.push(name);
      into?.childManifests.push(`${name}${OPEX_SUFFIX}`);
      addAsset(e, `${prefix}${name}`);
      return;
    }
    const name = siblings.claim(folderName(e.title, e.ref));
    into?.childFolders.push(name);
    const node = addFolder(e, `${prefix}${name}`, "exported");
    const mine = new SiblingNames();
    mine.reserve(`${name}${OPEX_SUFFIX}`);
    for (const c of children.get(e.ref) ?? []) {
      if (c.type !== "CO") addEntity(c, node.dir, mine, node);
    }
  };

  let parentDir: string | null = null;
  let siblings = new SiblingNames();
  let holder: PlannedNode | undefined;
  for (const a of above) {
    const name = siblings.claim(folderName(a.title, a.ref));
    holder?.childFolders.push(name);
    holder = addFolder(a, parentDir === null ? name : `${parentDir}/${name}`, "ancestor");
    parentDir = holder.dir;
    siblings = new SiblingNames();
    siblings.reserve(`${name}${OPEX_SUFFIX}`);
  }
  addEntity(root, parentDir, siblings, holder);
  return plan;
}
