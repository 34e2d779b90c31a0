import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startRepository } from "../repository/server.js";
import { TEMPLATE_SEEDS, TEMPLATES_ENV } from "./helpers/templates.js";

/**
 * Once per `vitest run`, before any test file: a repository data directory for each common seed, made by the
 * service itself. Test files then start from a copy (test/helpers/templates.ts) instead of running the
 * migrations, hashing the demo users' passwords and seeding the demo collection again, which a fresh store
 * costs each of ~150 files (about a second each on an idle 2-core machine, several under load).
 */
export default async function setup(): Promise<() => void> {
  const root = mkdtempSync(join(tmpdir(), "pmcp-templates-"));
  for (const seed of TEMPLATE_SEEDS) {
    const repo = await startRepository({ host: "127.0.0.1", port: 0, seed, dataDir: join(root, seed) });
    await repo.close();
  }
  process.env[TEMPLATES_ENV] = root;
  return () => rmSync(root, { recursive: true, force: true });
}
