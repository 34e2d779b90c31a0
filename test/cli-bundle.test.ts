import { spawn } from "node:child_process";
import { once } from "node:events";
import {
  copyFileSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import Module from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { remoteEnv } from "./e2e/helpers.js";
import { runCli } from "./helpers/process.js";
import { startTestRepository } from "./helpers/repository.js";
import { copyOfTemplate } from "./helpers/templates.js";

/** The compiled modules the bundle is made from (helpers/process.ts's CLI is the bundle itself). */
const PLAIN_CLI = fileURLToPath(new URL("../dist/src/cli.js", import.meta.url));

/**
 * The bundled CLI (scripts/bundle-cli.mjs, for a faster cold start) must be the same program as dist/src/cli.js:
 * the build's bundle, copied into a package-shaped folder (package.json, node_modules beside dist/), is driven as
 * a real process by a real MCP client against the embedded default, side by side with the unbundled build. Its
 * code cache (src/cli/code-cache.ts) goes to a temporary XDG_CACHE_HOME.
 */
const ROOT = fileURLToPath(new URL("../", import.meta.url));
let pkgDir: string;
let bundled: string;
let cacheHome: string;
const dataDirs: string[] = [];

beforeAll(() => {
  pkgDir = mkdtempSync(join(tmpdir(), "pmcp-cli-bundle-"));
  mkdirSync(join(pkgDir, "dist"));
  copyFileSync(join(ROOT, "package.json"), join(pkgDir, "package.json"));
  symlinkSync(join(ROOT, "node_modules"), join(pkgDir, "node_modules"));
  // The bundle `npm run build` made (npm test's pretest; also the CLI the other tests spawn), not a second one
  // built here: rolldown again cost 1-2 s. Older than the compiled modules it is made of, it would be compared
  // as a stale program.
  const built = join(ROOT, "dist", "bundle");
  const entry = join(ROOT, "dist", "src", "fast-start.js");
  if (statSync(join(built, "preservation-mcp.cjs")).mtimeMs < statSync(entry).mtimeMs)
    throw new Error("dist/bundle is older than dist/src: run npm run build");
  cpSync(built, join(pkgDir, "dist", "bundle"), { recursive: true });
  bundled = join(pkgDir, "dist", "bundle", "preservation-mcp.cjs");
  cacheHome = mkdtempSync(join(tmpdir(), "pmcp-cli-bundle-cache-"));
});

afterAll(() => {
  rmSync(pkgDir, { recursive: true, force: true });
  rmSync(cacheHome, { recursive: true, force: true });
  for (const d of dataDirs) rmSync(d, { recursive: true, force: true });
});

/** A child's environment: the bundle's code cache in this suite's temporary folder. */
const childEnv = (extra: Record<string, string> = {}): Record<string, string> => ({
  ...getDefaultEnvironment(),
  XDG_CACHE_HOME: cacheHome,
  ...extra,
});

function run(cli: string, args: string[], env: Record<string, string> = childEnv()) {
  return runCli(args, { cli, env });
}

/** One stdio session against the embedded default: the tool list, whoami, and what the server wrote on stderr. */
async function session(cli: string, dataDir: string) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cli],
    env: childEnv({ PRESERVATION_DATA_DIR: dataDir, PRESERVATION_LOG_LEVEL: "info" }),
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString("utf8");
  });
  const client = new Client({ name: "bundle-test", version: "1" });
  await client.connect(transport);
  try {
    const tools = (await client.listTools()).tools.map((t) => ({ name: t.name, input: t.inputSchema }));
    const whoami = await client.callTool({ name: "whoami", arguments: {} });
    // Words that are only inside the demo's PDFs (indexed at seed time by the service's PDF worker), then one
    // PDF's text (extracted by the server's own PDF worker): both load unpdf by path from node_modules.
    const found = await client.callTool({
      name: "search",
      arguments: { query: "Harbour Master report at the next meeting", type: "asset" },
    });
    const [hit] = (found.structuredContent as { hits: { ref: string }[] }).hits;
    const pdf = await client.callTool({ name: "get_file", arguments: { ref: hit?.ref } });
    const text = (pdf.content as { type: string; text: string }[])[0]?.text ?? "";
    return { tools, whoami, pdfText: text.slice(text.indexOf("Text extracted")), stderr: () => stderr };
  } finally {
    await client.close();
  }
}

/**
 * The modules a stdio session loaded until its first `whoami` answered: a preload lists the bundle's files the
 * process loaded, and each names its modules in `// path` lines.
 */
async function modulesLoadedBy(label: string, env: Record<string, string>): Promise<string[]> {
  const probe = join(pkgDir, `loaded-probe-${label}.cjs`);
  const listed = join(pkgDir, `loaded-${label}.json`);
  writeFileSync(
    probe,
    `process.once("exit", () => require("node:fs").writeFileSync(${JSON.stringify(listed)}, JSON.stringify(Object.keys(require.cache))));`,
  );
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["-r", probe, bundled],
    env: childEnv(env),
    stderr: "ignore",
  });
  const client = new Client({ name: "bundle-test", version: "1" });
  await client.connect(transport);
  expect((await client.callTool({ name: "whoami", arguments: {} })).isError).toBeFalsy();
  await client.close();
  await expect.poll(() => readdirSync(pkgDir).includes(`loaded-${label}.json`)).toBe(true);
  return (JSON.parse(readFileSync(listed, "utf8")) as string[])
    .filter((f) => f.startsWith(join(pkgDir, "dist", "bundle")))
    .flatMap((f) => readFileSync(f, "utf8").match(/^\/\/ (?:dist|node_modules)\/\S+$/gm) ?? []);
}

describe("the bundled CLI", () => {
  it("reports the package's version and the same help as the unbundled build", async () => {
    const version = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version;
    const v = await run(bundled, ["--version"]);
    expect(v).toMatchObject({ code: 0, stdout: `${version}\n` });
    const [help, plainHelp] = await Promise.all([run(bundled, ["--help"]), run(PLAIN_CLI, ["--help"])]);
    expect(help.code).toBe(0);
    expect(help.stdout).toBe(plainHelp.stdout);
  });

  it("serves the same tools over stdio against the embedded default, and logs JSON on stderr only", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pmcp-cli-bundle-data-"));
    dataDirs.push(dir);
    const packed = await session(bundled, dir); // seeds the demo collection: the seeders' chunks, libsql
    const plain = await session(PLAIN_CLI, dir);
    expect(packed.tools).toEqual(plain.tools);
    expect(packed.tools.length).toBeGreaterThan(10);
    expect(packed.whoami.isError).toBeFalsy();
    // Ports and times differ per start; who is signed in, with which roles, does not.
    const who = (r: { structuredContent?: unknown }) => {
      const { user, roles, tenant } = r.structuredContent as {
        user: string;
        roles: string[];
        tenant: string;
      };
      return { user, roles, tenant };
    };
    expect(who(packed.whoami)).toEqual(who(plain.whoami));
    expect(who(packed.whoami).user).toBe("curator");
    expect(packed.pdfText).toMatch(/^Text extracted from the PDF[^\n]*\n[\s\S]*Harbour Master/);
    expect(packed.pdfText).toBe(plain.pdfText);
    // pino inside the bundle still writes one JSON object per line to stderr (stdout is the MCP channel).
    const lines = packed
      .stderr()
      .split("\n")
      .filter((l) => l.trim());
    const messages = lines.map((l) => JSON.parse(l).msg as string);
    expect(messages.some((m) => m.startsWith("embedded repository service at http://127.0.0.1:"))).toBe(true);
  }, 60_000);

  it("tells the scripted tour word for word as the unbundled build does", async () => {
    // The tour drives many tools through a real client: searches, reads, files, events, a confirmed edit.
    const tour = async (cli: string) => {
      // A copy of the seeded demo store (the first-run seed in a bundle is the test above).
      const dir = copyOfTemplate("demo")?.dir ?? mkdtempSync(join(tmpdir(), "pmcp-cli-bundle-tour-"));
      dataDirs.push(dir);
      const r = await run(cli, ["tour"], childEnv({ PRESERVATION_DATA_DIR: dir }));
      expect(r.code, r.stderr).toBe(0);
      // Ports, data folders and times differ per run.
      return (
        r.stdout
          .replaceAll(dir, "DATA")
          .replace(/127\.0\.0\.1:\d+/g, "HOST")
          .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, "TIME")
          .replace(/\d+ ms/g, "N ms")
          // Confirmation tokens are sealed with a random nonce each run.
          .replace(/pc1\.[\w-]+/g, "TOKEN")
          // The closing hint names the command that runs *this* copy where it stands (a temporary folder for the
          // bundle here, the checkout for the plain build): test/e2e/self-command.test.ts checks those.
          .replace(
            /^That is the tour\. Connect an assistant with .*$/m,
            "That is the tour. Connect an assistant with …",
          )
      );
    };
    const [packed, plain] = await Promise.all([tour(bundled), tour(PLAIN_CLI)]);
    expect(packed.split("\n").length).toBeGreaterThan(50);
    expect(packed).toBe(plain);
  }, 120_000);

  it("runs the repository service alone", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pmcp-cli-bundle-repo-"));
    dataDirs.push(dir);
    const child = spawn(
      process.execPath,
      [bundled, "repository", "--port", "0", "--seed", "none", "--data", dir],
      { env: childEnv(), stdio: ["ignore", "pipe", "pipe"] },
    );
    try {
      let out = "";
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.setEncoding("utf8").on("data", (d: string) => {
          out += d;
          const m = out.match(/^listening on (http:\/\/\S+)\n/);
          if (m?.[1]) resolve(m[1]);
        });
        child.once("exit", (code) => reject(new Error(`exited ${code}`)));
      });
      const res = await fetch(`${url}/api/accesstoken/login`, {
        method: "POST",
        body: new URLSearchParams({ username: "curator", password: "curator-demo-pw" }),
      });
      expect(res.status).toBe(200);
      expect((await res.json()) as { success: boolean }).toMatchObject({ success: true });
    } finally {
      child.kill("SIGTERM");
      await once(child, "exit");
    }
  }, 30_000);

  it("serves stdio without loading the HTTP transport or Hono (a start's module loading is most of its time)", async () => {
    // Against a service by URL: the embedded one is a Hono app, and would load Hono itself.
    const repo = await startTestRepository({ seed: "none" });
    let modules: string[];
    try {
      modules = await modulesLoadedBy("remote", remoteEnv(repo.url));
    } finally {
      await repo.close();
    }
    expect(modules).toContain("// dist/src/server/server.js");
    const transportModules =
      /^\/\/ (dist\/src\/http\/|node_modules\/(@hono|hono|@modelcontextprotocol\/hono)\/)/;
    expect(modules.filter((m) => transportModules.test(m))).toEqual([]);
  }, 30_000);

  it("starts the embedded default without loading what only characterisation and ingest use", async () => {
    // A copy of the seeded demo store, as a client's second and later starts find it.
    const dir = copyOfTemplate("demo")?.dir;
    if (!dir) throw new Error("no demo template: run the suite's global set-up");
    dataDirs.push(dir);
    const modules = await modulesLoadedBy("embedded", { PRESERVATION_DATA_DIR: dir });
    expect(modules).toContain("// dist/repository/server.js");
    const onFirstUse =
      /^\/\/ node_modules\/(file-type|strtok3|token-types|@tokenizer\/inflate|image-size|exifr|yauzl)\//;
    expect(modules.filter((m) => onFirstUse.test(m))).toEqual([]);
  }, 30_000);

  it("is ASCII throughout, which V8 holds as one-byte strings (half the memory, faster to load at each start)", () => {
    const dir = join(pkgDir, "dist", "bundle");
    const other = readdirSync(dir)
      .filter((f) => f.endsWith(".cjs"))
      .flatMap((f) => (/[\u0080-\uffff]/.test(readFileSync(join(dir, f), "utf8")) ? [f] : []));
    expect(other).toEqual([]);
  });

  it("carries undici's Pool but not its index (fetch, WebSocket, cache and mock agents), which a start would run for nothing", () => {
    const dir = join(pkgDir, "dist", "bundle");
    const text = readdirSync(dir)
      .filter((f) => f.endsWith(".cjs"))
      .map((f) => readFileSync(join(dir, f), "utf8"))
      .join("\n");
    expect(text).toContain("// node_modules/undici/lib/dispatcher/pool.js");
    expect(text).not.toContain("// node_modules/undici/index.js");
  });
});

describe("the bundle's code cache", () => {
  /** Runs `--version` with the bundle's files counted: how many V8 compiled and how many came from the cache. */
  async function versionRun(env: Record<string, string>) {
    const probe = join(pkgDir, "probe.mjs");
    // The counts come from the bundle's own copy of src/cli/code-cache.ts, printed on stderr at exit (after the
    // cache's own exit handler, registered first).
    writeFileSync(
      probe,
      `const { codeCacheStats } = await import(${JSON.stringify(bundled)});
process.once("exit", () => process.stderr.write(JSON.stringify(codeCacheStats())));`,
    );
    return run(probe, ["--version"], env);
  }

  // Where Node has its own compile cache (22 and later), src/cli/code-cache.ts hands the folder to it instead and
  // counts nothing; this project runs on Node 20.
  const nodeHasOwnCache =
    typeof (Module as { enableCompileCache?: unknown }).enableCompileCache === "function";

  it.skipIf(nodeHasOwnCache)(
    "writes the bytecode of a first start per user, and a second start compiles from it",
    async () => {
      const home = mkdtempSync(join(tmpdir(), "pmcp-cli-bundle-cache1-"));
      dataDirs.push(home);
      const first = await versionRun(childEnv({ XDG_CACHE_HOME: home }));
      expect(first.code).toBe(0);
      expect(JSON.parse(first.stderr)).toMatchObject({ accepted: 0 });
      expect(JSON.parse(first.stderr).compiled).toBeGreaterThan(0);
      const [folder] = readdirSync(join(home, "preservation-mcp"));
      expect(folder).toBe(`v8-${process.version}-${process.arch}`);
      expect(readdirSync(join(home, "preservation-mcp", folder as string)).length).toBeGreaterThan(0);
      const second = await versionRun(childEnv({ XDG_CACHE_HOME: home }));
      expect(second.stdout).toBe(first.stdout);
      expect(JSON.parse(second.stderr)).toEqual({ accepted: JSON.parse(first.stderr).compiled, compiled: 0 });
    },
  );

  it("is off with NODE_DISABLE_COMPILE_CACHE, and a cache folder that cannot be made does not stop a start", async () => {
    const home = mkdtempSync(join(tmpdir(), "pmcp-cli-bundle-cache2-"));
    dataDirs.push(home);
    const off = await versionRun(childEnv({ XDG_CACHE_HOME: home, NODE_DISABLE_COMPILE_CACHE: "1" }));
    expect(off.code).toBe(0);
    expect(JSON.parse(off.stderr)).toEqual({ accepted: 0, compiled: 0 });
    expect(readdirSync(home)).toEqual([]);
    // A file where the cache folder would go: nothing can be written there.
    writeFileSync(join(home, "preservation-mcp"), "not a folder");
    const blocked = await versionRun(childEnv({ XDG_CACHE_HOME: home }));
    expect(blocked.code).toBe(0);
    expect(blocked.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });
});
