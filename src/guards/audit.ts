import { createHash, randomUUID } from "node:crypto";
import { createReadStream } from "node:fs";
import { appendFile, mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { createInterface } from "node:readline";
import { auditMatches, MemoryState } from "../state/memory.js";
import { type AuditFilter, type SharedState, StateUnavailableError } from "../state/types.js";
import type { AuditFacts, TargetRef } from "../tools/define.js";

/**
 * The audit log: every write and every refused write, one JSON line each, appended to the file the person
 * configured (PRESERVATION_AUDIT_LOG). It names the user, the tool, the targets with their titles, a digest
 * of the arguments (not the arguments: they may hold what should not sit in a log), the outcome and the job
 * handle; for metadata changes it keeps what was there before, so `undo_metadata_change` can put it back.
 * Secrets never reach it: nothing from the session or configuration is written.
 *
 * Every entry also goes to the shared state (state/): in-process, or Valkey/Redis shared by every instance of
 * a team server, so `undo_metadata_change` and `audit_log` find an entry whichever instance wrote it. The file
 * stays an extra output (each instance writes its own).
 */

export type AuditOutcome = "done" | "started" | "refused" | "failed" | "declined";

export interface AuditEntry {
  id: string;
  time: string;
  user: string;
  tool: string;
  targets: TargetRef[];
  argsDigest: string;
  outcome: AuditOutcome;
  /** Why it was refused or failed (the message the model read). */
  message?: string;
  job?: string;
  previous?: AuditFacts["previous"];
}

/** Canonical JSON (sorted keys) so the same arguments always give the same digest. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

export function digestArgs(args: unknown): string {
  return `sha256:${createHash("sha256").update(canonicalJson(args)).digest("hex")}`;
}

export class AuditLog {
  /** Appends are chained so lines never interleave, whatever the concurrency of tool calls. */
  private tail: Promise<void> = Promise.resolve();
  private ready: Promise<void> | undefined;

  constructor(
    readonly path: string | undefined,
    readonly state: SharedState = new MemoryState(),
    /** Told when an entry could not reach the shared state (the act itself is done; the log says so). */
    private readonly unshared: (err: unknown) => void = () => {},
  ) {}

  /**
   * Appends one entry; returns it (with its id) for the answer. A failing disk is reported, not hidden; a
   * shared state that cannot be reached is reported to `unshared` (writes are refused before they start
   * when it is away, so this is the rare store lost mid-call).
   */
  async record(entry: Omit<AuditEntry, "id" | "time">): Promise<AuditEntry> {
    const full: AuditEntry = { id: randomUUID(), time: new Date().toISOString(), ...entry };
    const shared = this.state.appendAudit(full).catch(this.unshared);
    await this.append(full);
    await shared;
    return full;
  }

  /** An entry by id: from the shared trail, else (older entries, beyond its cap) from the file. */
  async find(id: string): Promise<AuditEntry | undefined> {
    let unavailable: unknown;
    try {
      const found = await this.state.findAudit(id);
      if (found) return found;
    } catch (err) {
      if (!(err instanceof StateUnavailableError)) throw err;
      unavailable = err;
    }
    const fromFile = this.path ? await findAuditEntry(this.path, id) : undefined;
    if (!fromFile && unavailable) throw unavailable;
    return fromFile;
  }

  /**
   * Entries newest first. A team server's shared trail holds every instance's; a single instance with a file
   * reads the file (it outlives restarts, which the in-process trail does not).
   */
  list(filter: AuditFilter): Promise<{ entries: AuditEntry[]; total: number }> {
    if (this.state.kind === "memory" && this.path) return listAuditFile(this.path, filter);
    return this.state.listAudit(filter);
  }

  private async append(full: AuditEntry): Promise<void> {
    if (!this.path) return;
    const path = this.path;
    this.ready ??= mkdir(dirname(path), { recursive: true }).then(() => {});
    const line = `${JSON.stringify(full)}\n`;
    const write = this.tail.then(async () => {
      await this.ready;
      await appendFile(path, line, { encoding: "utf8", mode: 0o600 });
    });
    this.tail = write.catch(() => {});
    await write;
  }
}

/** Each entry of the file in order, line by line (it may be large); a torn or foreign line is skipped. */
async function* fileEntries(path: string, mentioning?: string): AsyncGenerator<AuditEntry> {
  let stream: ReturnType<typeof createReadStream>;
  try {
    stream = createReadStream(path, { encoding: "utf8" });
    await new Promise<void>((ok, fail) => {
      stream.once("open", () => ok());
      stream.once("error", fail);
    });
  } catch {
    return;
  }
  const lines = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
  try {
    for await (const line of lines) {
      if (mentioning !== undefined && !line.includes(mentioning)) continue;
      let entry: AuditEntry;
      try {
        entry = JSON.parse(line) as AuditEntry;
      } catch {
        // A torn last line (a crash mid-append) is skipped, not fatal.
        continue;
      }
      if (entry && typeof entry.id === "string" && Array.isArray(entry.targets)) yield entry;
    }
  } finally {
    lines.close();
    stream.destroy();
  }
}

/** Finds one entry by id, reading the log line by line. */
export async function findAuditEntry(path: string, id: string): Promise<AuditEntry | undefined> {
  for await (const entry of fileEntries(path, id)) if (entry.id === id) return entry;
  return undefined;
}

/**
 * One page of the file's entries, newest first, and how many match: one pass keeping only the newest
 * `offset + limit` matches, so memory stays bounded by the page, not by the file.
 */
export async function listAuditFile(
  path: string,
  f: AuditFilter,
): Promise<{ entries: AuditEntry[]; total: number }> {
  const keep = (f.offset ?? 0) + f.limit;
  const newest: AuditEntry[] = [];
  let total = 0;
  for await (const entry of fileEntries(path)) {
    if (!auditMatches(entry, f)) continue;
    total++;
    newest.push(entry);
    if (newest.length > keep) newest.shift();
  }
  return { entries: newest.reverse().slice(f.offset ?? 0, keep), total };
}
