import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SpawnedRepository, spawnRepository } from "../helpers/process.js";
import { type AnyClient, childEnv, connectStdio, killStragglers, remoteEnv } from "./helpers.js";

afterAll(killStragglers);

/**
 * Tokens that live three seconds, under a steady stream of tool calls for ten: the session refreshes (or
 * signs in again) before each token runs out, so not one call fails. Both sides are real processes.
 */

const RUN_MS = 10_000;

describe("token expiry during a stream of tool calls", () => {
  let repo: SpawnedRepository;
  let client: AnyClient;
  beforeAll(async () => {
    repo = await spawnRepository(["--seed", "demo", "--token-ttl", "3s"]);
    client = await connectStdio("v2", { env: childEnv(remoteEnv(repo.url, "manager")) });
  });
  afterAll(async () => {
    await client?.close();
    await repo?.stop();
  });

  it(
    "has zero failed calls over ten seconds of 3-second tokens",
    async () => {
      const names = await client.listToolNames();
      expect(names).toEqual(expect.arrayContaining(["whoami", "search", "browse"]));
      const calls: [string, Record<string, unknown>][] = [
        ["whoami", {}],
        ["search", { query: "harbour", limit: 5 }],
        ["browse", { limit: 5 }],
      ];

      const failures: string[] = [];
      const expiries = new Set<string>();
      let made = 0;
      const until = Date.now() + RUN_MS;
      while (Date.now() < until) {
        for (const [name, args] of calls) {
          const res = await client.call(name, args);
          made++;
          if (res.isError) failures.push(`${name}: ${res.text}`);
          if (name === "whoami") expiries.add((res.structured as { tokenExpiresAt: string }).tokenExpiresAt);
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      console.log(
        `${made} tool calls in ${RUN_MS / 1000} s with 3 s tokens; ${expiries.size} distinct tokens seen`,
      );
      expect(failures).toEqual([]);
      expect(made).toBeGreaterThan(20);
      // The calls really did span several token lifetimes.
      expect(expiries.size).toBeGreaterThanOrEqual(3);
    },
    RUN_MS + 15_000,
  );
});
