import { createHash, randomUUID } from "node:crypto";
import { createReadStream } from "node:fs";
import { appendFile, mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { createInterface } from "node:readline";
import type { AuditFacts, TargetRef } from "../tools/define.js";

/**
 * The audit log: every write and every refused write, one JSON line each, appended to the file the person
 * configured (PRESERVATION_AUDIT_LOG). It names the user, the tool, the targets with their titles, a digest
 * of the arguments (not the arguments: they may hold what should not sit in a log), the outcome and the job
 * handle; for metadata changes it keeps what was there before, so `undo_metadata_change` can put it back.
 * Secrets never reach it: nothing from the session or configuration is written.
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

  constructor(readonly path: string | undefined) {}

  /** Appends one entry; returns it (with its id) for the answer. A failing disk is reported, not hidden. */
  async record(entry: Omit<AuditEntry, "id" | "time">): Promise<AuditEntry> {
    const full: AuditEntry = { id: randomUUID(), time: new Date().toISOString(), ...entry };
    if (!this.path) return full;
    const path = this.path;
    this.ready ??= mkdir(dirname(path), { recursive: true }).then(() => {});
    const line = `${JSON.stringify(full)}\n`;
    const write = this.tail.then(async () => {
      await this.ready;
      await appendFile(path, line, { encoding: "utf8", mode: 0o600 });
    });
    this.tail = write.catch(() => {});
    await write;
    return full;
  }
}

/** Finds one entry by id, reading the log line by line (it may be large). */
export async function findAuditEntry(path: string, id: string): Promise<AuditEntry | undefined> {
  let stream: ReturnType<typeof createReadStream>;
  try {
    stream = createReadStream(path, { encoding: "utf8" });
    await new Promise<void>((ok, fail) => {
      stream.once("open", () => ok());
      stream.once("error", fail);
    });
  } catch {
    return undefined;
  }
  const lines = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
  try {
    for await (const line of lines) {
      if (!line.includes(id)) continue;
      try {
        const entry = JSON.parse(line) as AuditEntry;
        if (entry.id === id) return entry;
      } catch {
        // A torn last line (a crash mid-append) is skipped, not fatal.
      }
    }
  } finally {
    lines.close();
    stream.destroy();
  }
  return undefined;
}
