/**
 * `npm pack` / `npm publish` lifecycle: the packed package.json carries no install-time script.
 *
 * The checkout needs `prepare` (`npm ci && npm start` builds dist/), but in a tarball it makes npm warn
 * "install-scripts … (prepare: npm run build)" on every install, and dist/ is shipped built anyway. So `prepack`
 * builds, keeps package.json aside and writes it without `prepare`; `postpack` puts the original back (also
 * after a failed pack: `strip` refuses to run while a copy kept aside remains, rather than lose it).
 *
 *   node scripts/pack-manifest.mjs strip     (prepack; PRESERVATION_PACK_NO_BUILD=1 skips the build)
 *   node scripts/pack-manifest.mjs restore   (postpack)
 */
import { execSync } from "node:child_process";
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const MANIFEST = `${ROOT}package.json`;
const KEPT = `${ROOT}.package.json.unpacked`;
/** What npm runs when a package is installed (npm's install-scripts warning lists these). */
const INSTALL_SCRIPTS = ["preinstall", "install", "postinstall", "prepare"];

const [command] = process.argv.slice(2);
if (command === "strip") {
  if (existsSync(KEPT)) {
    console.error(`${KEPT} exists: an earlier pack did not finish. Run 'node scripts/pack-manifest.mjs restore' first.`);
    process.exit(1);
  }
  if (process.env.PRESERVATION_PACK_NO_BUILD !== "1") execSync("npm run build", { cwd: ROOT, stdio: "inherit" });
  const text = readFileSync(MANIFEST, "utf8");
  const pkg = JSON.parse(text);
  for (const name of INSTALL_SCRIPTS) delete pkg.scripts?.[name];
  renameSync(MANIFEST, KEPT);
  writeFileSync(MANIFEST, `${JSON.stringify(pkg, null, 2)}\n`);
} else if (command === "restore") {
  if (existsSync(KEPT)) renameSync(KEPT, MANIFEST);
} else {
  console.error("usage: node scripts/pack-manifest.mjs strip|restore");
  process.exit(2);
}
