import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AnyClient, childEnv, connectStdio, demoDataDir, remoteEnv } from "./e2e/helpers.js";
import { tempDir } from "./helpers/temp-dir.js";
import { useRepository } from "./helpers/use-mcp.js";
import { unzip } from "./repository/export/export-helpers.js";

/**
 * The shipped server is the bundle (dist/bundle, scripts/bundle-cli.mjs), which carries its own copy of yazl and of
 * the buffer-crc32 yazl computes each entry's CRC-32 with. Both zips it makes, an ingest package (src/local/
 * packaging.ts) and the embedded service's export (repository/export/package-writer.ts), must have that copy's
 * CRC-32 pointed at Node's native zlib.crc32 (~10x the pure-JavaScript loop), not node_modules' copy, which the
 * bundle never calls.
 *
 * Observed from outside the product: a preload (NODE_OPTIONS=--require) wraps zlib.crc32 in the bundled server's
 * process and counts the bytes that reach it from yazl's CRC stream (its Crc32Watcher on the stack), written to a
 * file the test reads. The service's own CRC check of an ingested zip also calls zlib.crc32, from elsewhere: not
 * counted.
 */
const PRELOAD = `
const fs = require("node:fs");
const zlib = require("node:zlib");
const native = zlib.crc32;
const record = process.env.CRC_RECORD;
let fromYazl = 0;
if (native && record) {
  zlib.crc32 = function crc32(data, value) {
    if (/\\bCrc32Watcher\\b/.test(new Error().stack ?? "")) {
      fromYazl += data.length;
      fs.writeFileSync(record, String(fromYazl));
    }
    return native.call(this, data, value);
  };
}
`;

const SIZE = 3 * 1024 * 1024;

/** The bundled server over stdio with the preload, and the bytes of yazl's CRC-32 that reached zlib.crc32 so far. */
async function bundledServer(work: string, name: string, env: Record<string, string>) {
  const record = join(work, `${name}.crc-bytes`);
  const client = await connectStdio("v2", {
    env: childEnv({
      NODE_OPTIONS: `--require ${join(work, "preload.cjs")}`,
      CRC_RECORD: record,
      PRESERVATION_LOG_LEVEL: "warn",
      ...env,
    }),
    args: ["--toolsets", "all"],
  });
  const viaNative = () => Number(readFileSync(record, { encoding: "utf8", flag: "a+" }) || 0);
  return { client, viaNative };
}

async function folderRef(client: AnyClient, title: string): Promise<string> {
  const found = await client.call("search", { query: title, type: "folder" });
  const ref = (found.structured as { hits: { ref: string }[] }).hits[0]?.ref;
  if (!ref) throw new Error(`no folder ${title}: ${found.text}`);
  return ref;
}

describe("the bundled server's zips", () => {
  const work = tempDir("pmcp-bundle-crc32-");
  const roots = join(work, "roots");
  const downloads = join(work, "downloads");
  const data = demoDataDir();
  // The MCP server alone (the service in this process), so the export's module, which points the bundle's one
  // buffer-crc32 at zlib.crc32 as it loads, is not in the bundled process: only packaging.ts can do it there.
  const repo = useRepository({ seed: "demo" });
  let embedded: Awaited<ReturnType<typeof bundledServer>>;
  let remote: Awaited<ReturnType<typeof bundledServer>>;

  beforeAll(async () => {
    mkdirSync(join(roots, "scan"), { recursive: true });
    mkdirSync(downloads);
    writeFileSync(join(roots, "scan", "page.tif"), randomBytes(SIZE));
    writeFileSync(join(work, "preload.cjs"), PRELOAD);
    [embedded, remote] = await Promise.all([
      bundledServer(work, "embedded", {
        PRESERVATION_DATA_DIR: data.dir,
        PRESERVATION_DOWNLOAD_DIR: downloads,
      }),
      bundledServer(work, "remote", { ...remoteEnv(repo.url), PRESERVATION_INGEST_ROOTS: roots }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([embedded?.client.close(), remote?.client.close()]);
    data.cleanup();
  });

  it("an export of the embedded service", async () => {
    const { client, viaNative } = embedded;
    const exported = await client.call("export", { ref: await folderRef(client, "Town Maps") });
    expect(exported.isError, exported.text).toBe(false);
    const saved = (exported.structured as { package?: { path: string } }).package;
    expect(saved, exported.text).toBeDefined();
    // yauzl checks every entry's CRC-32: the native values are the right ones.
    const { files } = await unzip(readFileSync(saved?.path ?? ""));
    const contentBytes = [...files]
      .filter(([name]) => !name.endsWith(".opex"))
      .reduce((n, [, bytes]) => n + bytes.length, 0);
    expect(contentBytes).toBeGreaterThan(0);
    expect(viaNative()).toBeGreaterThanOrEqual(contentBytes);
  });

  it("an ingest package made of a local folder", async () => {
    const { client, viaNative } = remote;
    const folder = await folderRef(client, "Town Maps");
    const ingested = await client.call("ingest", { path: join(roots, "scan"), folder });
    expect(ingested.isError, ingested.text).toBe(false);
    // The service checks every entry's CRC-32 as it unpacks.
    expect((ingested.structured as { state: string }).state, ingested.text).toBe("COMPLETED");
    expect(viaNative()).toBeGreaterThanOrEqual(SIZE);
  });
});
