import { cpSync, existsSync, rmSync } from "node:fs";
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
  // The template is one database file (test/global-setup.ts); a stray -wal or -shm would not belong to it.
  cpSync(template, dir, { recursive: true, filter: (src) => !/\.sqlite-(wal|shm)$/.test(src) });
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
