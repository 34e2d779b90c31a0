import { createHash } from "node:crypto";

/**
 * Deterministic identifiers and randomness for the seeds: the same key always gives the same ref, so a
 * fresh data directory holds the same collection on every machine and every run.
 */

/** A v4-shaped UUID derived from `key` (SHA-1 of the key, version and variant bits set). */
export function uuidFrom(key: string): string {
  const b = createHash("sha1").update(key).digest();
  b[6] = ((b[6] as number) & 0x0f) | 0x40;
  b[8] = ((b[8] as number) & 0x3f) | 0x80;
  const h = b.toString("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

/** A 32-hex-digit API id (identifiers and links use UUIDs without dashes). */
export function apiIdFrom(key: string): string {
  return uuidFrom(key).replaceAll("-", "");
}

/** A small seeded PRNG (mulberry32): fast, and the same sequence for the same seed everywhere. */
export class Prng {
  private state: number;

  constructor(seed: string) {
    this.state = createHash("sha1").update(seed).digest().readUInt32LE(0);
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [lo, hi], both inclusive. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error("pick from an empty list");
    return items[Math.floor(this.next() * items.length)] as T;
  }

  chance(p: number): boolean {
    return this.next() < p;
  }
}

/** `iso` plus a number of seconds, as ISO 8601 with milliseconds (the form the store keeps). */
export function addSeconds(iso: string, seconds: number): string {
  return new Date(Date.parse(iso) + seconds * 1000).toISOString();
}

/** `iso` plus a number of days. */
export function addDays(iso: string, days: number): string {
  return addSeconds(iso, days * 86_400);
}
