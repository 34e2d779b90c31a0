import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { RunningRepository } from "../../repository/server.js";
import { startTestRepository } from "../helpers/repository.js";
import {
  type AnyClient,
  childEnv,
  connectHttp,
  killStragglers,
  remoteEnv,
  type SpawnedCli,
  startHttp,
} from "./helpers.js";

afterAll(killStragglers);

/**
 * A team's load on one server: 50 clients (both protocol eras) each send 20 tool calls at once, 1,000 calls
 * in flight together over real HTTP on loopback, against the repository service. Every call must succeed,
 * under the default rate limit: each client has its own bearer token (as per-person tokens give), so each has
 * its own budget, and 21 requests in a burst stay far inside 600 a minute. Prints calls/s, p95 and the RSS.
 */

const CLIENTS = 50;
const CALLS_PER_CLIENT = 20;

let repo: RunningRepository;
let server: SpawnedCli & { url: string };
beforeAll(async () => {
  repo = await startTestRepository({ seed: "demo" });
  server = await startHttp([], childEnv(remoteEnv(repo.url)));
});
afterAll(async () => {
  expect(await server?.stop()).toBe(0);
  await repo?.close();
});

/** The child's resident set and its peak, in MiB (Linux: /proc; elsewhere ps, current only). */
function rssMiB(pid: number): { now: number; peak?: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kib = (field: string) => Number(status.match(new RegExp(`^${field}:\\s+(\\d+)`, "m"))?.[1]);
    return { now: kib("VmRSS") / 1024, peak: kib("VmHWM") / 1024 };
  } catch {
    return {
      now:
        Number(
          execFileSync("ps", ["-o", "rss=", "-p", String(pid)])
            .toString()
            .trim(),
        ) / 1024,
    };
  }
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

it(`${CLIENTS} clients make ${CLIENTS * CALLS_PER_CLIENT} concurrent tool calls with no error`, async () => {
  const pid = server.child.pid as number;
  const idle = rssMiB(pid);
  const clients: AnyClient[] = await Promise.all(
    Array.from({ length: CLIENTS }, (_, i) =>
      connectHttp(i % 2 === 0 ? "v2" : "v1", server.url, { authorization: `Bearer load-client-${i}-token` }),
    ),
  );
  try {
    const latencies: number[] = [];
    const failures: string[] = [];
    const started = performance.now();
    await Promise.all(
      clients.flatMap((client, c) =>
        Array.from({ length: CALLS_PER_CLIENT }, async (_, k) => {
          const t0 = performance.now();
          try {
            // A mix: one answered by the session alone, one that searches the repository service.
            const r =
              k % 2 === 0
                ? await client.call("whoami")
                : await client.call("search", { query: ["minutes", "report", "letter"][(c + k) % 3] });
            if (r.isError) failures.push(`${client.era}: ${r.text}`);
          } catch (err) {
            failures.push(`${client.era}: ${(err as Error).message}`);
          }
          latencies.push(performance.now() - t0);
        }),
      ),
    );
    const seconds = (performance.now() - started) / 1000;
    const after = rssMiB(pid);
    latencies.sort((a, b) => a - b);
    const calls = CLIENTS * CALLS_PER_CLIENT;
    console.log(
      `HTTP load: ${calls} tool calls from ${CLIENTS} clients in ${seconds.toFixed(2)} s = ${(calls / seconds).toFixed(0)} calls/s; ` +
        `latency p50 ${percentile(latencies, 50).toFixed(0)} ms, p95 ${percentile(latencies, 95).toFixed(0)} ms, max ${latencies.at(-1)?.toFixed(0)} ms; ` +
        `server RSS ${idle.now.toFixed(0)} MiB idle -> ${after.now.toFixed(0)} MiB` +
        (after.peak ? ` (peak ${after.peak.toFixed(0)} MiB)` : ""),
    );
    expect(failures.slice(0, 5)).toEqual([]);
    expect(latencies).toHaveLength(calls);
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
  }
}, 60_000);
