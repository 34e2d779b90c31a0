import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./temp-dir.js";

/** Seeds test/global-setup.ts prepares once per run; the folder is named in this variable. */
export const TEMPLATE_SEEDS = ["demo", "none"] as const;
export type TemplateSeed = (typeof TEMPLATE_SEEDS)[number];
export const TEMPLATES_ENV = "PMCP_TEST_TEMPLATES";

/**
 * A fresh data directory holding a copy of the store seeded with `seed`, and a function removing it (the end of
 * the test file removes it otherwise: tempDir); undefined when no template was made (a test file run outside
 * `vitest run` with the global setup, say), so the caller seeds as before. A copy is the same store a fresh
 * start would make, minutes older.
 */
export function copyOfTemplate(seed: TemplateSeed): { dir: string; remove(): void } | undefined {
  const root = process.env[TEMPLATES_ENV];
  const template = root ? join(root, seed) : undefined;
  if (!template || !existsSync(template)) return undefined;
  const dir = tempDir(`pmcp-${seed}-`);
  for (const entry of templateEntries(template)) {
    if (entry.folder) mkdirSync(join(dir, entry.path));
    else copyFileSync(join(template, entry.path), join(dir, entry.path));
  }
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A template's folders and files, parents first, as listed once per process (they do not change in a run). */
const listed = new Map<string, { path: string; folder: boolean }[]>();

/**
 * Copied entry by entry from this list, a copy takes ~5 ms on tmpfs where fs.cpSync, which examines each
 * entry again per copy, took 12-19 ms; most test files copy a template per repository they start.
 */
function templateEntries(template: string): { path: string; folder: boolean }[] {
  const known = listed.get(template);
  if (known) return known;
  const entries: { path: string; folder: boolean }[] = [];
  const walk = (rel: string) => {
    for (const e of readdirSync(join(template, rel), { withFileTypes: true })) {
      const path = join(rel, e.name);
      // The template is one database file (test/global-setup.ts); a stray -wal or -shm would not belong to it.
      if (/\.sqlite-(wal|shm)$/.test(e.name)) continue;
      if (e.isDirectory()) {
        entries.push({ path, folder: true });
        walk(path);
      } else entries.push({ path, folder: false });
    }
  };
  walk("");
  listed.set(template, entries);
  return entries;
}
