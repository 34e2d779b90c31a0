import { baseName, dirName } from "./entry-names.js";
import type { IngestPlan, PlannedAsset, PlannedFile, PlannedFolder, PlannedParent } from "./plan.js";
import type { PackageEntry, ZipPackage } from "./zip.js";

/**
 * A plain zip (no manifests): each folder of the package becomes a folder, each file an asset with
 * one Preservation representation holding one content object, whose one generation (original,
 * active) holds the file. Names are kept as they were: a folder's title is its name, an asset's and
 * its content object's the file's name (extension included), and the bitstream's OriginalName too.
 */
export function planPlainZip(pkg: ZipPackage, target: string | null): IngestPlan {
  const parentOf = (path: string): PlannedParent => {
    const dir = dirName(path);
    return dir === "" ? { kind: "target", ref: target } : { kind: "planned", key: dir };
  };
  const folders = [...pkg.folders()].map((path) => folderOf(path, parentOf(path)));
  const assets = pkg.files().map((e) => fileAsset(e, parentOf(e.path)));
  return { kind: "zip", folders, assets, missing: [], notes: [] };
}

/** The folder a directory of the package becomes (also used for OPEX folders, which then add their manifest's facts). */
export function folderOf(path: string, parent: PlannedParent): PlannedFolder {
  return {
    key: path,
    title: baseName(path),
    description: null,
    customType: null,
    identifiers: [],
    fragments: [],
    source: `${path}/`,
    parent,
  };
}

/** The asset a single file becomes (also used for OPEX files, which then add their manifest's facts). */
export function fileAsset(e: PackageEntry, parent: PlannedParent): PlannedAsset {
  const name = baseName(e.path);
  const file: PlannedFile = { entryPath: e.path, filename: name, originalName: name, fixities: [] };
  return {
    key: e.path,
    title: name,
    description: null,
    customType: null,
    identifiers: [],
    fragments: [],
    source: e.path,
    parent,
    representations: [
      {
        type: "Preservation",
        name: null,
        contentObjects: [
          {
            key: `${e.path}#co`,
            title: name,
            description: null,
            customType: null,
            identifiers: [],
            fragments: [],
            source: e.path,
            generations: [{ original: true, active: true, label: name, effectiveDate: null, files: [file] }],
          },
        ],
      },
    ],
  };
}
