import { parseArgs } from "node:util";
import { outboxDir } from "./outbox.js";
import { DEFAULT_DEMO_PASSWORDS, type DemoPasswords } from "./seed.js";
import { DEFAULT_API_VERSION, type RunningRepository, type SeedChoice, startRepository } from "./server.js";
import { temporaryDataDir } from "./temporary-data-dir.js";

/** `preservation-mcp repository ...`: runs the repository service until SIGINT, SIGTERM or SIGHUP. */

export const REPOSITORY_USAGE = `Usage: preservation-mcp repository [options]

  --host HOST           address to bind (default 127.0.0.1)
  --port PORT           port, 0 picks a free one (default 8080)
  --data DIR            data directory (SQLite + content store); default: a temporary one removed on exit
  --seed demo|none|N    seed an empty store with the demo collection, nothing, or N synthetic entities (default demo)
  --token-ttl DURATION  access-token lifetime, e.g. 15m, 90s, 3s (default 15m)
  --api-version X.Y     newest Entity API version served (default ${DEFAULT_API_VERSION})
  --session-lifetime M  maxSessionLifetimeMins (default 480)
  --latency MS          add MS milliseconds to every answer, like a service across a network (default 0)
  --webhook-hosts H,H   hosts webhook receivers may be on besides loopback (default: loopback only)
  --<user>-password PW  demo user password (manager, curator, reader, guest, twofactor);
                        or PRESERVATION_DEMO_<USER>_PASSWORD
  -h, --help            this text
`;

export class UsageError extends Error {
  // The CLI recognises it by name, so it need not load this module (and the whole service) to do so.
  override readonly name = "UsageError";
}

/** "15m", "90s", "2h", "500ms", or a bare number of seconds → milliseconds. */
function parseDuration(raw: string, name: string): number {
  const m = raw.trim().match(/^(\d+(?:\.\d+)?)(ms|s|m|h)?$/);
  if (!m) throw new UsageError(`${name} must be a duration such as 15m, 90s or 3s, got "${raw}"`);
  const n = Number(m[1]);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? "s") as "ms" | "s" | "m" | "h"];
  const ms = n * unit;
  if (ms < 1000) throw new UsageError(`${name} must be at least 1s`);
  return ms;
}

function parseSeed(raw: string): SeedChoice {
  if (raw === "demo" || raw === "none") return raw;
  if (/^\d+$/.test(raw) && Number(raw) > 0 && Number(raw) <= 10_000_000) return Number(raw);
  throw new UsageError(`--seed must be demo, none or a number of entities (1 to 10000000), got "${raw}"`);
}

function parsePort(raw: string): number {
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n > 65535) throw new UsageError(`--port must be 0-65535, got "${raw}"`);
  return n;
}

/** "a.example,b.example" → host names; each a plain host (no scheme, path or port). */
function parseHosts(raw: string): string[] {
  const hosts = raw
    .split(",")
    .map((h) => h.trim())
    .filter((h) => h !== "");
  for (const h of hosts) {
    if (!/^(\[[0-9a-fA-F:.]+\]|[0-9a-fA-F:]*:[0-9a-fA-F:.]+|[A-Za-z0-9.-]+)$/.test(h)) {
      throw new UsageError(
        `--webhook-hosts takes host names separated by commas (no scheme, port or path), got "${h}"`,
      );
    }
  }
  return hosts;
}

export async function runRepository(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const userNames = Object.keys(DEFAULT_DEMO_PASSWORDS) as (keyof DemoPasswords)[];
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        host: { type: "string", default: "127.0.0.1" },
        port: { type: "string", default: "8080" },
        data: { type: "string" },
        seed: { type: "string", default: "demo" },
        "token-ttl": { type: "string", default: "15m" },
        "api-version": { type: "string", default: DEFAULT_API_VERSION },
        "session-lifetime": { type: "string", default: "480" },
        latency: { type: "string", default: "0" },
        "webhook-hosts": { type: "string", default: "" },
        help: { type: "boolean", short: "h" },
        ...Object.fromEntries(userNames.map((u) => [`${u}-password`, { type: "string" as const }])),
      },
      strict: true,
    }));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (values.help) {
    process.stdout.write(REPOSITORY_USAGE);
    return;
  }
  const apiVersion = String(values["api-version"]);
  if (!/^\d+\.\d+$/.test(apiVersion))
    throw new UsageError(`--api-version must look like 7.7, got "${apiVersion}"`);
  const sessionLifetime = Number(values["session-lifetime"]);
  if (!Number.isInteger(sessionLifetime) || sessionLifetime < 1) {
    throw new UsageError("--session-lifetime must be a whole number of minutes, at least 1");
  }
  const latency = String(values.latency);
  if (!/^\d+$/.test(latency) || Number(latency) > 60_000) {
    throw new UsageError(`--latency must be a whole number of milliseconds (0-60000), got "${latency}"`);
  }
  const passwords: Partial<DemoPasswords> = {};
  for (const u of userNames) {
    const pw =
      (values[`${u}-password`] as string | undefined) ?? env[`PRESERVATION_DEMO_${u.toUpperCase()}_PASSWORD`];
    if (pw) passwords[u] = pw;
  }

  // Stopped by Ctrl-C, a kill, or its terminal closing (SIGHUP): each closes the store and removes a temporary
  // data directory, which the signal's default action would leave behind. Listened for before the start (a seed
  // takes seconds) and so before the banner says the service is ready: whoever reads it may stop it at once.
  const stop = stopSignal();
  try {
    const started = Date.now();
    const repo = await startRepository({
      host: String(values.host),
      port: parsePort(String(values.port)),
      dataDir: (values.data as string | undefined) ?? temporaryDataDir(),
      seed: parseSeed(String(values.seed)),
      tokenTtlMs: parseDuration(String(values["token-ttl"]), "--token-ttl"),
      apiVersion,
      maxSessionLifetimeMins: sessionLifetime,
      passwords,
      webhookHosts: parseHosts(String(values["webhook-hosts"])),
      ...(Number(latency) > 0 ? { faults: { latencyMs: Number(latency) } } : {}),
    });
    if (!stop.requested()) printBanner(repo, values.data !== undefined, passwords, Date.now() - started);
    await stop.signalled;
    await repo.close().catch(() => {});
  } finally {
    stop.dispose();
  }
}

/**
 * The first of SIGINT, SIGTERM or SIGHUP, listened for from now until it comes or `dispose`: a second signal
 * takes its default action, so a person can still end a stop that hangs.
 */
function stopSignal(): { signalled: Promise<void>; requested(): boolean; dispose(): void } {
  const signals = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
  let requested = false;
  let resolveSignalled = () => {};
  const signalled = new Promise<void>((resolve) => {
    resolveSignalled = resolve;
  });
  const onSignal = () => {
    dispose();
    requested = true;
    resolveSignalled();
  };
  const dispose = () => {
    for (const signal of signals) process.off(signal, onSignal);
  };
  for (const signal of signals) process.on(signal, onSignal);
  return { signalled, requested: () => requested, dispose };
}

/** What `listening on URL` and the lines after it say: the contract scripts and tests read, then the demo users. */
function printBanner(
  repo: RunningRepository,
  ownData: boolean,
  passwords: Partial<DemoPasswords>,
  readyMs: number,
): void {
  // A script may read the first line and close the pipe (`| head -1`): keep serving rather than die of EPIPE.
  process.stdout.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code !== "EPIPE") throw err;
  });
  const userNames = Object.keys(DEFAULT_DEMO_PASSWORDS) as (keyof DemoPasswords)[];
  // The first stdout line is the contract scripts and tests read.
  process.stdout.write(`listening on ${repo.url}\n`);
  const lines = userNames.map(
    (u) => `  ${u.padEnd(10)} ${passwords[u] ? "(password set by flag/env)" : DEFAULT_DEMO_PASSWORDS[u]}`,
  );
  process.stdout.write(
    `demo users (username, password):\n${lines.join("\n")}\n` +
      `data: ${ownData ? repo.svc.dataDir : `${repo.svc.dataDir} (temporary, removed on exit)`}\n` +
      `challenge e-mails: ${outboxDir(repo.svc.dataDir)}\n` +
      `ready in ${readyMs} ms${repo.seeded ? " (seeded)" : ""}\n`,
  );
}
