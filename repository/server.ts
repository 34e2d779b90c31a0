import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getRequestListener } from "@hono/node-server";
import { createApp } from "./app.js";
import type { ServiceContext } from "./context.js";
import { sweepExports } from "./export/files.js";
import { type FaultOptions, Faults } from "./http/faults.js";
import { answerClientErrors, requestErrorReply } from "./http/malformed-requests.js";
import type { ActionKind } from "./jobs/action-kind.js";
import { ActionRunner } from "./jobs/runner.js";
import { sweepUploads } from "./s3/multipart.js";
// The seeders (the demo plan is large) load only when a store is empty: a start with data skips them.
import { DEFAULT_DEMO_PASSWORDS, type DemoPasswords, seedUsersAndTags } from "./seed/users.js";
import { ContentStore } from "./store/content-store.js";
import { type Db, entityCount, openDatabase } from "./store/db.js";
import { startWebhooks } from "./webhooks/service.js";
import type { WebhookDeliveryOptions } from "./webhooks/settings.js";

export type SeedChoice = "demo" | "none" | number;

export interface RepositoryOptions {
  host?: string;
  port?: number;
  /** Data directory; undefined = a temporary directory removed on close. */
  dataDir?: string;
  seed?: SeedChoice;
  tokenTtlMs?: number;
  apiVersion?: string;
  maxSessionLifetimeMins?: number;
  passwords?: Partial<DemoPasswords>;
  externalAuthSecret?: string;
  now?: () => number;
  /** Test-only fault injection (faults.ts): off unless given; then `repo.faults` controls it. */
  faults?: FaultOptions | true;
  /** How many long-running actions run at once (default 2). */
  actionConcurrency?: number;
  /** The kinds of long-running action this service runs (default every kind in jobs/kinds.ts); tests add their own. */
  actionKinds?: readonly ActionKind[];
  /** Largest content upload accepted, in bytes (default 4 GiB; see routes/entity-content-writes.ts). */
  maxUploadBytes?: number;
  /** Hosts webhook receivers may be on besides loopback (the CLI's --webhook-hosts); see webhooks/settings.ts. */
  webhookHosts?: readonly string[];
  /** Webhook timing (timeout, back-off, attempts, poll interval): tests shorten it. */
  webhookDelivery?: WebhookDeliveryOptions;
}

export interface RunningRepository {
  /** Base URL, e.g. http://127.0.0.1:8080 */
  url: string;
  svc: ServiceContext;
  /** Whether this start seeded an empty store. */
  seeded: boolean;
  /** Present only when started with `faults`. */
  faults?: Faults;
  close(): Promise<void>;
}

export const DEFAULT_TOKEN_TTL_MS = 15 * 60_000;
export const DEFAULT_API_VERSION = "7.7";
/** How long close() waits for requests still being handled before it closes the database. */
const CLOSE_WAIT_MS = 10_000;

/** Opens the store, seeds it if empty, and serves the HTTP API. */
export async function startRepository(opts: RepositoryOptions = {}): Promise<RunningRepository> {
  if (opts.dataDir !== undefined) return serveStore(opts.dataDir, opts);
  const dataDir = mkdtempSync(join(tmpdir(), "preservation-repo-"));
  const removeDir = () => rmSync(dataDir, { recursive: true, force: true });
  // A temporary store goes with the service: when it stops, and when its start fails at any step.
  const repo = await serveStore(dataDir, opts).catch((err: unknown) => {
    removeDir();
    throw err;
  });
  return {
    ...repo,
    async close() {
      await repo.close();
      removeDir();
    },
  };
}

/** startRepository on a given data directory, which it leaves in place. */
async function serveStore(dataDir: string, opts: RepositoryOptions): Promise<RunningRepository> {
  const db = openDatabase(dataDir);
  try {
    return await seedAndServe(db, dataDir, opts);
  } catch (err) {
    // Nothing may stay open behind a failed start; a start that got as far as listening has closed itself.
    if (db.open) db.close();
    throw err;
  }
}

async function seedAndServe(db: Db, dataDir: string, opts: RepositoryOptions): Promise<RunningRepository> {
  const content = new ContentStore(join(dataDir, "content"));
  const svc = {
    db,
    content,
    dataDir,
    tokenTtlMs: opts.tokenTtlMs ?? DEFAULT_TOKEN_TTL_MS,
    apiVersion: opts.apiVersion ?? DEFAULT_API_VERSION,
    maxSessionLifetimeMins: opts.maxSessionLifetimeMins ?? 8 * 60,
    externalAuthSecret: opts.externalAuthSecret ?? "demo-shared-secret",
    now: opts.now ?? Date.now,
    ...(opts.maxUploadBytes !== undefined ? { maxUploadBytes: opts.maxUploadBytes } : {}),
  } as ServiceContext;
  svc.actions = new ActionRunner(svc, opts.actionConcurrency, opts.actionKinds);

  let seeded = false;
  const seed = opts.seed ?? "demo";
  // Two processes may start on one empty data directory at once (an MCP client launching the embedded
  // default twice): while one seeds (seconds), the other waits for the write lock instead of failing.
  db.pragma("busy_timeout = 120000");
  // Users and tags are checked on every start (and written where they differ) so password overrides take effect
  // on existing data.
  seedUsersAndTags(db, { ...DEFAULT_DEMO_PASSWORDS, ...opts.passwords });
  if (seed !== "none" && entityCount(db) === 0) {
    const writeSeed =
      seed === "demo"
        ? await import("./seed/demo.js").then((m) => () => m.seedDemo(db, content, { dataDir }))
        : await import("./seed/synthetic.js").then((m) => () => m.seedSynthetic(db, content, seed));
    // The check and the seed run under one write lock, so the second process waits, then finds data.
    seeded = db
      .transaction(() => {
        if (entityCount(db) !== 0) return false;
        writeSeed();
        return true;
      })
      .immediate();
  }
  db.pragma("busy_timeout = 5000");

  const faults = opts.faults ? new Faults(opts.faults === true ? {} : opts.faults) : undefined;
  const app = createApp(svc, { faults });
  // Requests being handled: close() waits for them before it closes the database they may still query.
  const inFlight = new Set<Promise<unknown>>();
  const handle: typeof app.fetch = (...args) => {
    const answer = Promise.resolve(app.fetch(...args));
    inFlight.add(answer);
    const done = () => inFlight.delete(answer);
    answer.then(done, done);
    return answer;
  };
  const host = opts.host ?? "127.0.0.1";
  const port = opts.port ?? 8080;
  // Built as @hono/node-server's serve() does, plus JSON answers for requests that never reach the app.
  const server = createServer(
    getRequestListener(handle, { hostname: host, errorHandler: requestErrorReply }),
  );
  answerClientErrors(server);
  await new Promise<void>((resolve, reject) => {
    server.once("error", (err: NodeJS.ErrnoException) => {
      reject(
        err.code === "EADDRINUSE"
          ? new Error(
              `port ${port} on ${host} is already in use; choose another with --port (0 picks a free one)`,
            )
          : err,
      );
    });
    server.listen(port, host, () => resolve()); // throws at once on a bad port (70000): the start rejects
  });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    faults?.stop();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      // Keep-alive sockets would hold close() open until they time out.
      (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
    });
    // A handler still running (its client gone) may query the store: a query on a closed libsql database
    // panics and takes the process down, so the database closes only after them (bounded: a handler that
    // never ends must not hold the stop forever).
    await Promise.race([
      Promise.allSettled([...inFlight]),
      new Promise((resolve) => setTimeout(resolve, CLOSE_WAIT_MS).unref()),
    ]);
    await svc.actions.close();
    await svc.webhooks?.worker.close();
    db.close();
  };
  try {
    // Actions a crash or stop left ACTIVE carry on (their routes are loaded, so every kind is known).
    svc.actions.resumeInterrupted();
    sweepExports(svc); // export packages past their 7 days (export/files.ts)
    sweepUploads(dataDir, svc.now()); // S3 multipart uploads left unused for a day (s3/multipart.ts)
    svc.webhooks = startWebhooks(db, opts.webhookHosts, opts.webhookDelivery); // queued deliveries resume
  } catch (err) {
    await close(); // listening already: the port, the runner and the database go before the start fails
    throw err;
  }
  const { port: boundPort } = server.address() as AddressInfo;
  const urlHost = host.includes(":") ? `[${host}]` : host;
  return { url: `http://${urlHost}:${boundPort}`, svc, seeded, ...(faults ? { faults } : {}), close };
}
