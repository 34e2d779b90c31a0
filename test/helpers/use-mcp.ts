import { afterAll, beforeAll } from "vitest";
import type { RepositoryOptions, RunningRepository } from "../../repository/server.js";
import { type McpHarness, type McpHarnessOptions, startMcp } from "./mcp.js";
import { startTestRepository } from "./repository.js";

/**
 * The set-up a tool test repeats: a repository service and our server with a client of one protocol era,
 * started once in `beforeAll` of the describe that calls these and closed in its `afterAll`. Both answer at
 * once with a stand-in that forwards to the real thing once it runs, so a describe reads
 *
 *   describe.each(ERAS)("tool (%s)", (era) => {
 *     const mcp = useMcp({ era, seed: "demo", user: "manager", flags: ["--toolsets", "all"] });
 *     const reader = useMcp({ era, repo: mcp.repo, user: "reader" }); // same repository, another person
 *     it("…", async () => { await mcp.call("search", { q: "x" }); mcp.repo.url; … });
 *   });
 *
 * Vitest runs `beforeAll` hooks in the order they are declared and `afterAll` hooks in reverse, so a fixture
 * may use one declared before it (a `beforeAll` in between may seed the repository before the server starts).
 */

/** A repository service for the describe (or file) around it: started in beforeAll, closed in afterAll. */
export function useRepository(opts: RepositoryOptions = {}): RunningRepository {
  let repo: RunningRepository | undefined;
  beforeAll(async () => {
    repo = await startTestRepository({ seed: "demo", ...opts });
  });
  afterAll(async () => {
    await repo?.close();
  });
  return standIn("useRepository", () => repo);
}

export interface UseMcpOptions extends Omit<McpHarnessOptions, "repo"> {
  /** Use this repository (e.g. another fixture's `repo`, or `useRepository`), left open for its owner. */
  repo?: RunningRepository;
  /** The store of the repository the fixture starts when no `repo` is given ("demo" unless set). */
  seed?: "demo" | "none";
}

/**
 * Our server, with a real client of `era`, for the describe around it. Without `repo`, it starts its own
 * repository (`seed`, `tokenTtlMs`), which `mcp.repo` answers.
 */
export function useMcp(opts: UseMcpOptions = {}): McpHarness {
  const repo = opts.repo ?? useRepository({ seed: opts.seed ?? "demo", tokenTtlMs: opts.tokenTtlMs });
  let harness: McpHarness | undefined;
  beforeAll(async () => {
    harness = await startMcp({ ...opts, repo });
  });
  afterAll(async () => {
    await harness?.close();
  });
  // `repo` answers before the server starts, so another fixture can be declared on the same repository.
  return standIn("useMcp", () => harness, { repo });
}

/** An object that forwards to `current()` once it is set, and says where it is started when used too early. */
function standIn<T extends object>(maker: string, current: () => T | undefined, known: Partial<T> = {}): T {
  const target = (): T => {
    const it = current();
    if (!it)
      throw new Error(`${maker}: not started yet; it starts in beforeAll, use it inside tests and hooks`);
    return it;
  };
  return new Proxy({} as T, {
    get(_, key) {
      if (Object.hasOwn(known, key)) return (known as Record<string | symbol, unknown>)[key];
      const it = target();
      const value = Reflect.get(it, key);
      return typeof value === "function" ? value.bind(it) : value;
    },
    has: (_, key) => Reflect.has(target(), key),
    ownKeys: () => Reflect.ownKeys(target()),
    getOwnPropertyDescriptor(_, key) {
      const d = Reflect.getOwnPropertyDescriptor(target(), key);
      return d ? { ...d, configurable: true } : undefined;
    },
  });
}
