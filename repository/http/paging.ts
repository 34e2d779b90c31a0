import { HTTPException } from "hono/http-exception";

/** Largest page any list returns; a bigger `max` is clamped to it (documented in the README). */
export const MAX_PAGE_SIZE = 1000;

function nonNegativeInt(name: string, raw: string): number {
  if (!/^\d+$/.test(raw.trim())) {
    throw new HTTPException(400, {
      message: `Parameter ${name} must be a non-negative integer, got "${raw}"`,
    });
  }
  const n = Number(raw.trim());
  if (!Number.isSafeInteger(n)) throw new HTTPException(400, { message: `Parameter ${name} is too large` });
  return n;
}

/**
 * `start` and `max` of a list request. `max` defaults to `defaultMax`, is clamped to MAX_PAGE_SIZE, and
 * `max=-1` (sent by some Content API clients to mean "all") also means the largest page.
 */
export function parsePaging(
  get: (name: string) => string | undefined,
  defaultMax: number,
): { start: number; max: number } {
  const rawStart = get("start");
  const rawMax = get("max");
  const start = rawStart === undefined || rawStart === "" ? 0 : nonNegativeInt("start", rawStart);
  let max = defaultMax;
  if (rawMax !== undefined && rawMax !== "") {
    max = rawMax.trim() === "-1" ? MAX_PAGE_SIZE : nonNegativeInt("max", rawMax);
  }
  return { start, max: Math.min(max, MAX_PAGE_SIZE) };
}
