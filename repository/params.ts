import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";

/** Request parameters as the routes read them; repeated names keep every value. */
export interface Params {
  /** The last value of `name` (a body value overrides the same name in the query string). */
  get(name: string): string | undefined;
  getAll(name: string): string[];
}

/**
 * Request parameters from the query string and, for POST/PUT, the body: multipart (text fields), with
 * `json: true` a JSON object of parameters, and anything else read as form-encoded (clients that forget
 * the Content-Type header send the same body). Real clients send the same parameters either way,
 * sometimes repeated. JSON is opt-in: only the Content API is documented to take it.
 */
export async function requestParams(c: Context, opts: { json?: boolean } = {}): Promise<Params> {
  const pairs: [string, string][] = [...new URL(c.req.url).searchParams];
  if (c.req.method === "POST" || c.req.method === "PUT") {
    const type = (c.req.header("content-type") ?? "").toLowerCase();
    if (type.startsWith("multipart/form-data")) {
      const body = await c.req.parseBody({ all: true });
      for (const [name, value] of Object.entries(body)) {
        for (const v of [value].flat()) if (typeof v === "string") pairs.push([name, v]);
      }
    } else if (opts.json && type.startsWith("application/json")) {
      pairs.push(...(await jsonParams(c)));
    } else {
      pairs.push(...new URLSearchParams(await c.req.text()));
    }
  }
  return {
    get: (name) => pairs.findLast(([k]) => k === name)?.[1],
    getAll: (name) => pairs.filter(([k]) => k === name).map(([, v]) => v),
  };
}

async function jsonParams(c: Context): Promise<[string, string][]> {
  let body: unknown;
  try {
    body = await c.req.json();
  } catch {
    throw new HTTPException(400, { message: "The request body is not valid JSON" });
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new HTTPException(400, { message: "A JSON request body must be an object of parameters" });
  }
  const pairs: [string, string][] = [];
  for (const [name, value] of Object.entries(body)) {
    for (const v of [value].flat()) {
      if (v !== undefined && v !== null)
        pairs.push([name, typeof v === "object" ? JSON.stringify(v) : String(v)]);
    }
  }
  return pairs;
}

/** Values of a list parameter sent once comma-joined (`a,b`), as repeated keys, or both. */
export function listValues(values: readonly string[]): string[] {
  return values
    .flatMap((v) => v.split(","))
    .map((v) => v.trim())
    .filter((v) => v !== "");
}

/** "true"/"1"/"yes" (any case) is true; anything else false. */
export function flag(value: string | null | undefined): boolean {
  return value !== null && value !== undefined && /^(true|1|yes)$/i.test(value.trim());
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `raw` is a UUID, the form of every entity, fragment and event reference. */
export function isUuid(raw: string): boolean {
  return UUID.test(raw);
}
