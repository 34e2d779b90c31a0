import { Client, InMemoryTransport, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createMcpHandler } from "@modelcontextprotocol/server";
import type { RunningRepository } from "../../repository/server.js";
import { loadConfig } from "../../src/config.js";
import { audienceFrom } from "../../src/guards/visibility.js";
import { createLogger } from "../../src/log.js";
import { buildServer, type ServerDeps } from "../../src/server/server.js";
import { Session } from "../../src/session/session.js";
import { DEMO_USERS, type DemoUser, startTestRepository } from "./repository.js";

export interface McpHarness {
  client: Client;
  repo: RunningRepository;
  deps: ServerDeps;
  /** Calls a tool and returns its structured content; throws with the text when isError. */
  call<T = Record<string, unknown>>(name: string, args?: Record<string, unknown>): Promise<T>;
  /** Messages of the elicitation requests the client answered (with `elicit`). */
  elicited: string[];
  /** Calls a tool and returns the raw result (for error assertions). */
  raw(name: string, args?: Record<string, unknown>): Promise<ToolResult>;
  close(): Promise<void>;
}

export interface McpHarnessOptions {
  user?: DemoUser;
  /** Extra configuration flags, e.g. ["--read-only"] or ["--toolsets", "all"]. */
  flags?: string[];
  /** Extra configuration variables, e.g. { PRESERVATION_CONFIRM_KEY: "…" }. */
  env?: Record<string, string>;
  /** Share an already running repository (not closed by the harness). */
  repo?: RunningRepository;
  tokenTtlMs?: number;
  /** The caller's roles, when the harness must not ask the service at start (e.g. its user API is blocked). */
  roles?: string[];
  /**
   * The protocol era: "2025-11-25" (the default) links client and server in memory; "2026-07-28" runs the
   * real Streamable HTTP path (createMcpHandler) with the v2 client pinned to 2026-07-28, no socket.
   */
  era?: Era;
  /**
   * Declare form elicitation and answer every request with this (the person's answer); unset = the client
   * cannot elicit, so confirmations go through the token path. Requests seen are kept in `elicited`.
   */
  elicit?: (message: string) => {
    action: "accept" | "decline" | "cancel";
    content?: Record<string, string | number | boolean | string[]>;
  };
}

export type Era = "2025-11-25" | "2026-07-28";
export const ERAS: readonly Era[] = ["2025-11-25", "2026-07-28"];

type ToolResult = Awaited<ReturnType<Client["callTool"]>>;

/** The text blocks of a tool result, joined by newlines (resource links and other blocks left out). */
export function textOf(res: ToolResult): string {
  return (res.content as { type: string; text?: string }[])
    .filter((c) => c.type === "text")
    .map((c) => c.text ?? "")
    .join("\n");
}

/**
 * A real MCP client (v2 SDK) connected in memory to our real server, which talks to a real repository
 * service over loopback HTTP (the demo collection unless a repo is passed in).
 */
export async function startMcp(opts: McpHarnessOptions = {}): Promise<McpHarness> {
  const ownRepo = !opts.repo;
  const repo = opts.repo ?? (await startTestRepository({ seed: "demo", tokenTtlMs: opts.tokenTtlMs }));
  try {
    return await connectMcp(opts, repo, ownRepo);
  } catch (err) {
    // A start that fails part-way (a refused flag, a failed sign-in) must not leave its repository running.
    if (ownRepo) await repo.close();
    throw err;
  }
}

/** startMcp past its repository: our server on `repo`, and a client connected to it. */
async function connectMcp(
  opts: McpHarnessOptions,
  repo: RunningRepository,
  ownRepo: boolean,
): Promise<McpHarness> {
  const who = DEMO_USERS[opts.user ?? "manager"];
  const config = loadConfig(opts.flags ?? [], {
    ...opts.env,
    PRESERVATION_URL: repo.url,
    PRESERVATION_USERNAME: who.username,
    PRESERVATION_PASSWORD: who.password,
  });
  const log = createLogger({ level: "silent" });
  const session = new Session({ url: repo.url, username: who.username, password: who.password, logger: log });
  const elicited: string[] = [];
  const client = new Client(
    { name: "test-client", version: "1.0.0" },
    {
      ...(opts.elicit ? { capabilities: { elicitation: { form: {} } } } : {}),
      ...(opts.era === "2026-07-28" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {}),
    },
  );
  if (opts.elicit) {
    const answer = opts.elicit;
    client.setRequestHandler("elicitation/create", async (req) => {
      const message = String((req.params as { message?: string }).message ?? "");
      elicited.push(message);
      return answer(message);
    });
  }
  let server: { close(): Promise<void> } | undefined;
  const closeAll = async () => {
    await client.close();
    await server?.close();
    await session.close();
  };
  let deps: ServerDeps;
  try {
    await session.login();
    const roles = opts.roles ?? (await session.whoAmI()).roles;
    deps = { config, session, log, audience: audienceFrom(config, roles) };
    server = await connectServer(client, deps, opts.era);
  } catch (err) {
    await closeAll(); // the session signed in, the server half-connected: neither outlives a failed start
    throw err;
  }
  const raw = (name: string, args: Record<string, unknown> = {}) =>
    client.callTool({ name, arguments: args });
  return {
    client,
    repo,
    deps,
    elicited,
    raw,
    async call<T>(name: string, args: Record<string, unknown> = {}) {
      const res = await raw(name, args);
      if (res.isError) throw new Error(`${name} failed: ${textOf(res)}`);
      return res.structuredContent as T;
    },
    async close() {
      await closeAll();
      if (ownRepo) await repo.close();
    },
  };
}

/** Our server built on `deps`, with `client` connected to it in `era`; returns what closes the server. */
async function connectServer(
  client: Client,
  deps: ServerDeps,
  era: Era | undefined,
): Promise<{ close(): Promise<void> }> {
  if (era === "2026-07-28") {
    const handler = createMcpHandler(() => buildServer(deps));
    await client.connect(
      new StreamableHTTPClientTransport(new URL("http://127.0.0.1/mcp"), {
        fetch: (url, init) => handler.fetch(new Request(url, init)),
      }),
    );
    return { close: async () => {} };
  }
  const inMemory = buildServer(deps);
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await inMemory.connect(serverTransport);
  await client.connect(clientTransport);
  return inMemory;
}
