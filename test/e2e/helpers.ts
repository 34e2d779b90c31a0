import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { rmSync } from "node:fs";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as V1StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport as V1HttpTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CLI } from "../helpers/process.js";
import { DEMO_USERS, type DemoUser } from "../helpers/repository.js";
import { tempDir } from "../helpers/temp-dir.js";
import { copyOfTemplate } from "../helpers/templates.js";

/**
 * End-to-end helpers: the built CLI as a real child process, driven by the two client generations (the v2
 * `@modelcontextprotocol/client`, which speaks 2026-07-28, and the 1.x `@modelcontextprotocol/sdk` client,
 * which speaks 2025-11-25). The child never inherits our PRESERVATION_* variables: each test says what it sets.
 */

export const MODERN = "2026-07-28";
export const LEGACY = "2025-11-25";

/**
 * Children still running when a test file ends (a test that timed out never reaches its `finally`): every
 * e2e file calls `afterAll(killStragglers)`, so no server outlives its test file.
 */
const live = new Set<number>();
export function killStragglers(): void {
  for (const pid of live) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  live.clear();
}
function track(pid: number | null | undefined, exited: Promise<unknown>): void {
  if (!pid) return;
  live.add(pid);
  void exited.finally(() => live.delete(pid));
}

/**
 * The v2 client's own StdioClientTransport negotiates the era on a short-lived sibling process (a second
 * server start, on the same data directory); a subclass negotiates on its own connection: one process.
 */
class InPlaceStdioTransport extends StdioClientTransport {}

/**
 * A clean environment for the child: the SDK's safe defaults (PATH, HOME…) and the test file's temporary
 * directory (TMPDIR, test/helpers/file-end.ts, so what the child leaves there is found), plus exactly `extra`.
 */
export function childEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = { ...getDefaultEnvironment() };
  if (process.env.TMPDIR) env.TMPDIR = process.env.TMPDIR;
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) env[k] = v;
  return env;
}

/** Configuration for a repository service at `url`, signed in as a demo user. */
export function remoteEnv(url: string, user: DemoUser = "curator"): Record<string, string> {
  return {
    PRESERVATION_URL: url,
    PRESERVATION_USERNAME: DEMO_USERS[user].username,
    PRESERVATION_PASSWORD: DEMO_USERS[user].password,
  };
}

/** A temporary data directory for the embedded default, removed by `cleanup` or else when the file ends. */
export function tempDataDir(): { dir: string; cleanup(): void } {
  const dir = tempDir("pmcp-e2e-");
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A data directory already holding the demo collection (a copy of the run's template, test/global-setup.ts),
 * so the spawned embedded default starts without seeding it again (several seconds on a loaded machine; the
 * copy under one). For tests that do not depend on a first run: those keep `tempDataDir()` (the bundle's
 * first-run seeding is checked in test/cli-bundle.test.ts, the service's in test/repository/process.test.ts).
 * Outside `vitest run` (no template) it is an empty directory, and the child seeds as before.
 */
export function demoDataDir(): { dir: string; cleanup(): void } {
  const copy = copyOfTemplate("demo");
  return copy ? { dir: copy.dir, cleanup: copy.remove } : tempDataDir();
}

/** The common surface of both client generations that these tests use. */
export interface AnyClient {
  era: "v2" | "v1";
  listToolNames(): Promise<string[]>;
  listTools(): Promise<{ name: string; annotations?: Record<string, unknown> }[]>;
  call(
    name: string,
    args?: Record<string, unknown>,
  ): Promise<{ isError?: boolean; structured: unknown; text: string }>;
  protocolVersion(): string | undefined;
  /** resources/read: the contents' texts. */
  readText(uri: string): Promise<string[]>;
  close(): Promise<void>;
}

function textOf(content: unknown): string {
  return Array.isArray(content)
    ? content
        .map((c: { type?: string; text?: string }) => (c.type === "text" ? (c.text ?? "") : ""))
        .join("\n")
    : "";
}

/** The v1 stdio transport, remembering the protocol version the client settled on. */
class RecordingV1Stdio extends V1StdioClientTransport {
  negotiated?: string;
  setProtocolVersion(v: string): void {
    this.negotiated = v;
  }
}

export interface StdioOptions {
  env: Record<string, string>;
  args?: string[];
  /** v2 only: pin 2026-07-28 (the default; one process) or probe with server/discover ("auto"). */
  negotiation?: "pin" | "auto";
}

/** The v2 client negotiates only when asked (its default is the plain 2025 handshake). */
function v2Client(name: string, negotiation: "pin" | "auto"): Client {
  return new Client(
    { name, version: "1.0.0" },
    { versionNegotiation: { mode: negotiation === "pin" ? { pin: MODERN } : "auto" } },
  );
}

function wrapV2(client: Client): Omit<AnyClient, "close"> {
  return {
    era: "v2",
    async listTools() {
      return (await client.listTools()).tools as { name: string; annotations?: Record<string, unknown> }[];
    },
    async listToolNames() {
      return (await client.listTools()).tools.map((t) => t.name);
    },
    async call(name, args = {}) {
      const r = await client.callTool({ name, arguments: args });
      return { isError: r.isError === true, structured: r.structuredContent, text: textOf(r.content) };
    },
    protocolVersion: () => client.getNegotiatedProtocolVersion(),
    async readText(uri) {
      return (await client.readResource({ uri })).contents.map((c) => ("text" in c ? c.text : ""));
    },
  };
}

function wrapV1(client: V1Client, negotiated: () => string | undefined): Omit<AnyClient, "close"> {
  return {
    era: "v1",
    async listTools() {
      return (await client.listTools()).tools as { name: string; annotations?: Record<string, unknown> }[];
    },
    async listToolNames() {
      return (await client.listTools()).tools.map((t) => t.name);
    },
    async call(name, args = {}) {
      const r = await client.callTool({ name, arguments: args });
      return { isError: r.isError === true, structured: r.structuredContent, text: textOf(r.content) };
    },
    protocolVersion: negotiated,
    async readText(uri) {
      return (await client.readResource({ uri })).contents.map((c) => ("text" in c ? String(c.text) : ""));
    },
  };
}

/** Spawns the shipped CLI (`node dist/bundle/preservation-mcp.cjs [args]`) and connects the chosen client generation over stdio. */
export async function connectStdio(
  era: "v2" | "v1",
  opts: StdioOptions,
): Promise<AnyClient & { stderr(): string }> {
  let stderr = "";
  const params = {
    command: process.execPath,
    args: [CLI, ...(opts.args ?? [])],
    env: opts.env,
    stderr: "pipe" as const,
  };
  if (era === "v2") {
    const transport = new InPlaceStdioTransport(params);
    transport.stderr?.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    const client = v2Client("e2e-v2", opts.negotiation ?? "pin");
    await client.connect(transport).catch((err: Error) => {
      throw new Error(`${err.message}\n--- server stderr ---\n${stderr}`);
    });
    track(transport.pid, new Promise((r) => (client.onclose = () => r(undefined))));
    return { ...wrapV2(client), stderr: () => stderr, close: () => client.close() };
  }
  const transport = new RecordingV1Stdio(params);
  transport.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  const client = new V1Client({ name: "e2e-v1", version: "1.0.0" });
  await client.connect(transport).catch((err: Error) => {
    throw new Error(`${err.message}\n--- server stderr ---\n${stderr}`);
  });
  track(transport.pid, new Promise((r) => (client.onclose = () => r(undefined))));
  return { ...wrapV1(client, () => transport.negotiated), stderr: () => stderr, close: () => client.close() };
}

/** Connects the chosen client generation to a Streamable HTTP endpoint. */
export async function connectHttp(
  era: "v2" | "v1",
  url: string,
  headers: Record<string, string> = {},
): Promise<AnyClient> {
  if (era === "v2") {
    const client = v2Client("e2e-v2-http", "auto");
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
    return { ...wrapV2(client), close: () => client.close() };
  }
  const transport = new V1HttpTransport(new URL(url), { requestInit: { headers } });
  const client = new V1Client({ name: "e2e-v1-http", version: "1.0.0" });
  await client.connect(transport);
  return { ...wrapV1(client, () => transport.protocolVersion), close: () => client.close() };
}

export interface SpawnedCli {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code once the child has exited. */
  exited: Promise<number | null>;
  /** The exit code, or "timeout" (and the child killed) when it runs longer than `ms`. */
  exitedWithin(ms: number): Promise<number | null | "timeout">;
  stop(): Promise<number | null>;
}

/** Spawns the CLI with a clean environment, capturing both streams. */
export function spawnCli(args: string[], env: Record<string, string>): SpawnedCli {
  const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout?.setEncoding("utf8").on("data", (d: string) => {
    out += d;
  });
  child.stderr?.setEncoding("utf8").on("data", (d: string) => {
    err += d;
  });
  const exited = once(child, "exit").then(([code]) => code as number | null);
  track(child.pid, exited);
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    exitedWithin(ms) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<"timeout">((resolve) => {
        timer = setTimeout(() => {
          child.kill("SIGKILL");
          resolve("timeout");
        }, ms);
      });
      return Promise.race([exited, late]).finally(() => clearTimeout(timer));
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      return exited;
    },
  };
}

/** Starts `--http --port 0 [args]` and waits for `listening on http://…/mcp` on stderr. */
export async function startHttp(
  args: string[],
  env: Record<string, string>,
): Promise<SpawnedCli & { url: string }> {
  const cli = spawnCli(["--http", "--port", "0", ...args], env);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no "listening on" line in 20 s:\n${cli.stderr()}`)),
      20_000,
    );
    const look = () => {
      const m = cli.stderr().match(/^listening on (http:\/\/\S+\/mcp)$/m);
      if (m?.[1]) {
        clearTimeout(timer);
        cli.child.stderr?.off("data", look);
        resolve(m[1]);
      }
    };
    cli.child.stderr?.on("data", look);
    cli.exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`exited (${code}) before listening:\n${cli.stderr()}`));
    });
  });
  return { ...cli, url };
}
