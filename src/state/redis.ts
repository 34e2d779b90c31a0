import { createClient } from "@redis/client";
import type { Logger } from "pino";
import type { AuditEntry } from "../guards/audit.js";
import { auditMatches } from "./memory.js";
import { type AuditFilter, type Lease, type SharedState, StateUnavailableError } from "./types.js";

/**
 * The shared state on Valkey or Redis (PRESERVATION_STATE_URL), for several instances of a team server.
 * Every operation is one atomic step on the store: SET NX PX for spent tokens and leases, a Lua script for
 * compare-and-delete (a lease is released only by its holder), INCR with PEXPIRE in one script for rate
 * windows, and one script that appends an audit entry with its indexes and trims the oldest.
 *
 * Fail closed, fast: commands are not queued while the connection is down (`disableOfflineQueue`), each
 * command has a deadline, and every failure becomes `StateUnavailableError`. The client keeps reconnecting
 * in the background, so the store coming back needs no restart. The URL is never logged (it may hold a
 * password); neither are the store's error messages, which can name the host.
 */

export interface RedisStateOptions {
  url: string;
  log?: Logger;
  /** Prepended to every key, so one store can serve several deployments. */
  prefix?: string;
  /** Entries kept for `audit_log` (the oldest are dropped beyond it); the JSON-lines file keeps everything. */
  auditCap?: number;
  /** A command not answered within this fails (the store hangs: the call must not). */
  commandTimeoutMs?: number;
  /** How long start-up waits for the first connection before serving without it (writes refused meanwhile). */
  connectWaitMs?: number;
}

const DEFAULT_PREFIX = "preservation-mcp:";
const DEFAULT_AUDIT_CAP = 100_000;
const DEFAULT_COMMAND_TIMEOUT_MS = 2000;
const DEFAULT_CONNECT_WAIT_MS = 3000;
/** Entries fetched per HMGET when a listing must filter what an index alone cannot. */
const SCAN_CHUNK = 500;

/** Frees the lease only if it still holds this holder's token (it may have lapsed and been taken since). */
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

/** One hit in a fixed window: the count, and the ms until the window ends (set on the window's first hit). */
const HIT = `local c = redis.call('INCR', KEYS[1])
local t = redis.call('PTTL', KEYS[1])
if c == 1 or t < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) t = tonumber(ARGV[1]) end
return {c, t}`;

/**
 * Appends one entry: KEYS = entries hash, the time index of all entries, then the entry's user, tool and
 * target indexes; ARGV = id, time (ms), JSON, cap, key prefix. Beyond the cap the oldest entries go, from
 * the hash and from every index that names them (found from the entry itself).
 */
const APPEND = `local id, score = ARGV[1], ARGV[2]
redis.call('HSET', KEYS[1], id, ARGV[3])
for i = 2, #KEYS do redis.call('ZADD', KEYS[i], score, id) end
local over = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[4])
if over > 0 then
  local p = ARGV[5]
  for _, old in ipairs(redis.call('ZRANGE', KEYS[2], 0, over - 1)) do
    local json = redis.call('HGET', KEYS[1], old)
    if json then
      local ok, e = pcall(cjson.decode, json)
      if ok then
        redis.call('ZREM', p .. 'audit:user:' .. tostring(e.user), old)
        redis.call('ZREM', p .. 'audit:tool:' .. tostring(e.tool), old)
        if type(e.targets) == 'table' then
          for _, t in ipairs(e.targets) do redis.call('ZREM', p .. 'audit:target:' .. tostring(t.ref), old) end
        end
      end
      redis.call('HDEL', KEYS[1], old)
    end
  end
  redis.call('ZREMRANGEBYRANK', KEYS[2], 0, over - 1)
end
return 1`;

/** Commands are not queued while the connection is down: they fail at once, so writes are refused at once. */
function makeClient(url: string, timeoutMs: number) {
  return createClient({
    url,
    disableOfflineQueue: true,
    socket: {
      connectTimeout: timeoutMs,
      // Back off to one attempt a second: the store coming back is noticed within a second.
      reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 1000),
    },
  });
}
type Client = ReturnType<typeof makeClient>;

export class RedisState implements SharedState {
  readonly kind = "redis" as const;
  readonly #client: Client;
  readonly #p: string;
  readonly #auditCap: number;
  readonly #timeoutMs: number;
  readonly #log: Logger | undefined;
  /** Whether the last outage was logged already: one line when the store goes away, one when it is back. */
  #down = false;

  private constructor(client: Client, opts: RedisStateOptions) {
    this.#client = client;
    this.#p = opts.prefix ?? DEFAULT_PREFIX;
    this.#auditCap = opts.auditCap ?? DEFAULT_AUDIT_CAP;
    this.#timeoutMs = opts.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
    this.#log = opts.log;
  }

  /** Connects (waiting a little for the first connection) and keeps reconnecting while it is used. */
  static async open(opts: RedisStateOptions): Promise<RedisState> {
    const client = makeClient(opts.url, opts.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS);
    const state = new RedisState(client, opts);
    client.on("error", () => state.#wentDown());
    client.on("ready", () => state.#cameBack());
    const connected = client.connect().then(
      () => true,
      () => false,
    );
    const waited = await Promise.race([
      connected,
      new Promise<false>((r) => setTimeout(r, opts.connectWaitMs ?? DEFAULT_CONNECT_WAIT_MS, false).unref()),
    ]);
    if (!waited) state.#wentDown();
    return state;
  }

  /** True while connected: what `/readyz` reports. */
  get reachable(): boolean {
    return this.#client.isReady;
  }

  async ping(): Promise<void> {
    await this.#run((c) => c.ping());
  }

  async spendOnce(id: string, ttlMs: number): Promise<boolean> {
    const set = await this.#run((c) => c.set(`${this.#p}spent:${id}`, "1", { NX: true, PX: ms(ttlMs) }));
    return set === "OK";
  }

  async lease(key: string, ttlMs: number): Promise<Lease | undefined> {
    const k = `${this.#p}lease:${key}`;
    const holder = crypto.randomUUID();
    const set = await this.#run((c) => c.set(k, holder, { NX: true, PX: ms(ttlMs) }));
    if (set !== "OK") return undefined;
    return {
      release: async () => {
        await this.#run((c) => c.eval(RELEASE, { keys: [k], arguments: [holder] }));
      },
    };
  }

  async hit(key: string, windowMs: number): Promise<{ count: number; resetInMs: number }> {
    const reply = (await this.#run((c) =>
      c.eval(HIT, { keys: [`${this.#p}rate:${key}`], arguments: [String(ms(windowMs))] }),
    )) as [number, number];
    return { count: Number(reply[0]), resetInMs: Math.max(0, Number(reply[1])) };
  }

  async getValue(key: string): Promise<string | undefined> {
    const v = await this.#run((c) => c.get(`${this.#p}value:${key}`));
    return v === null ? undefined : String(v);
  }

  async setValue(key: string, value: string, ttlMs: number): Promise<void> {
    await this.#run((c) => c.set(`${this.#p}value:${key}`, value, { PX: ms(ttlMs) }));
  }

  async deleteValue(key: string): Promise<void> {
    await this.#run((c) => c.del(`${this.#p}value:${key}`));
  }

  async appendAudit(entry: AuditEntry): Promise<void> {
    const indexes = [
      this.#index("user", entry.user),
      this.#index("tool", entry.tool),
      ...new Set(entry.targets.map((t) => this.#index("target", t.ref))),
    ];
    await this.#run((c) =>
      c.eval(APPEND, {
        keys: [`${this.#p}audit:entries`, `${this.#p}audit:all`, ...indexes],
        arguments: [
          entry.id,
          String(Date.parse(entry.time)),
          JSON.stringify(entry),
          String(this.#auditCap),
          this.#p,
        ],
      }),
    );
  }

  async findAudit(id: string): Promise<AuditEntry | undefined> {
    const json = await this.#run((c) => c.hGet(`${this.#p}audit:entries`, id));
    return json ? (JSON.parse(String(json)) as AuditEntry) : undefined;
  }

  /**
   * Newest first. The most selective index (target, else user, else tool, else all) gives the ids within
   * the dates; when it covers the whole filter only the page is fetched, otherwise the entries are read in
   * chunks and filtered here (bounded by the cap on the trail).
   */
  async listAudit(f: AuditFilter): Promise<{ entries: AuditEntry[]; total: number }> {
    const [key, covered] =
      f.target !== undefined
        ? [this.#index("target", f.target), "target"]
        : f.user !== undefined
          ? [this.#index("user", f.user), "user"]
          : f.tool !== undefined
            ? [this.#index("tool", f.tool), "tool"]
            : [`${this.#p}audit:all`, "none"];
    const max = f.until !== undefined ? String(Date.parse(f.until)) : "+inf";
    const min = f.since !== undefined ? String(Date.parse(f.since)) : "-inf";
    const from = f.offset ?? 0;
    const rest = { ...f, since: undefined, until: undefined, [covered]: undefined };
    const residual = rest.user !== undefined || rest.tool !== undefined || rest.target !== undefined;
    const hash = `${this.#p}audit:entries`;

    if (!residual) {
      const [total, ids] = await this.#run((c) =>
        Promise.all([
          c.zCount(key, min, max),
          f.limit > 0
            ? c.zRange(key, max, min, { BY: "SCORE", REV: true, LIMIT: { offset: from, count: f.limit } })
            : Promise.resolve([] as string[]),
        ]),
      );
      const jsons = ids.length ? await this.#run((c) => c.hmGet(hash, ids.map(String))) : [];
      return { entries: jsons.flatMap((j) => (j ? [JSON.parse(String(j)) as AuditEntry] : [])), total };
    }

    const ids = (await this.#run((c) => c.zRange(key, max, min, { BY: "SCORE", REV: true }))).map(String);
    const entries: AuditEntry[] = [];
    let total = 0;
    for (let i = 0; i < ids.length; i += SCAN_CHUNK) {
      const chunk = ids.slice(i, i + SCAN_CHUNK);
      const jsons = await this.#run((c) => c.hmGet(hash, chunk));
      for (const j of jsons) {
        if (!j) continue;
        const e = JSON.parse(String(j)) as AuditEntry;
        if (!auditMatches(e, rest)) continue;
        if (total >= from && entries.length < f.limit) entries.push(e);
        total++;
      }
    }
    return { entries, total };
  }

  async close(): Promise<void> {
    if (this.#client.isOpen) await this.#client.close().catch(() => this.#client.destroy());
    else this.#client.destroy();
  }

  #index(kind: "user" | "tool" | "target", value: string): string {
    return `${this.#p}audit:${kind}:${value}`;
  }

  /**
   * One command within the deadline, or StateUnavailableError. A command that times out may still reach the
   * store later; every caller treats the failure as "refused", which is the safe reading of either outcome.
   */
  async #run<T>(command: (c: Client) => Promise<T>): Promise<T> {
    if (!this.#client.isReady) throw new StateUnavailableError();
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        command(this.#client),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`no answer within ${this.#timeoutMs} ms`)),
            this.#timeoutMs,
          );
        }),
      ]);
    } catch (err) {
      // A script error is a bug of ours, not an outage: keep it visible as itself.
      if (err instanceof Error && /^ERR .*script/i.test(err.message)) throw err;
      this.#wentDown();
      throw new StateUnavailableError(err);
    } finally {
      clearTimeout(timer);
    }
  }

  #wentDown(): void {
    if (this.#down) return;
    this.#down = true;
    this.#log?.warn(
      "the shared state store (PRESERVATION_STATE_URL) cannot be reached: changes are refused until it is back",
    );
  }

  #cameBack(): void {
    if (!this.#down) return;
    this.#down = false;
    this.#log?.info("the shared state store (PRESERVATION_STATE_URL) is reachable again");
  }
}

/** Whole milliseconds, at least 1: PX refuses 0 and fractions. */
function ms(n: number): number {
  return Math.max(1, Math.ceil(n));
}
