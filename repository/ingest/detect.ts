import { baseName } from "./entry-names.js";
import { isManifest, planOpex, readManifests } from "./opex.js";
import { planPlainZip } from "./plain.js";
import type { IngestPlan } from "./plan.js";
import { isXipRoot, planXip, type XipDocument } from "./xip.js";
import { parsePackageXml } from "./xml.js";
import { PackageRefused, type ZipPackage } from "./zip.js";

/**
 * Which kind of package this is, and what it asks for. OPEX when any `.opex` manifest is present
 * (an OPEX package may carry XIP inside its PAX assets); else XIP when it holds a `.xip` document or a
 * `metadata.xml` whose root is an XIP element of any version; else a plain zip of folders and files.
 */

/** Largest XIP document read (a multi-asset package of 10,000 files has one of some 30 MB). */
export const MAX_XIP_BYTES = 64 * 1024 * 1024;

export async function planPackage(pkg: ZipPackage, target: string | null): Promise<IngestPlan> {
  const files = pkg.files();
  if (files.some((f) => isManifest(f.path))) return planOpex(pkg, target, await readManifests(pkg));

  const docs: XipDocument[] = [];
  for (const f of files) {
    const lower = f.path.toLowerCase();
    const named = lower.endsWith(".xip");
    if (!named && (baseName(lower) !== "metadata.xml" || f.size > MAX_XIP_BYTES)) continue;
    const root = parsePackageXml(await pkg.readText(f, MAX_XIP_BYTES), f.path);
    if ("problem" in root) {
      if (!named) continue; // a metadata.xml that is not XML is just a file of a plain zip
      throw new PackageRefused(
        `The package's XIP document is not usable: ${root.problem}; nothing was ingested`,
      );
    }
    if (isXipRoot(root)) docs.push({ path: f.path, root });
    else if (named) {
      throw new PackageRefused(
        `${f.path} is not an XIP document (its root is <${root.name}>${root.ns ? ` in ${root.ns}` : ""}, expected <XIP> in http://preservica.com/XIP/vX.Y); nothing was ingested`,
      );
    }
  }
  if (docs.length > 0) return planXip(pkg, target, docs);
  return planPlainZip(pkg, target);
}
