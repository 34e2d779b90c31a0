import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";

/** Request parameters as the routes read them; repeated names keep every value. */
export interface Params {
  /** The last value of `name` (a body value overrides the same name in the query string). */
  get(name: string): string | undefined;
  getAll(name: string): string[];
  /** Every parameter name given, once each, in order of appearance. */
  names(): string[];
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
      const body = await multipartFields(c);
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
    names: () => [...new Set(pairs.map(([k]) => k))],
  };
}

/** A multipart body without a boundary, or with broken parts, is a client mistake, not a crash. */
async function multipartFields(c: Context): Promise<Record<string, unknown>> {
  try {
    return await c.req.parseBody({ all: true });
  } catch {
    throw new HTTPException(400, {
      message:
        "The multipart/form-data body could not be read (no boundary, or malformed parts); send the parameters form-encoded (application/x-www-form-urlencoded) instead",
    });
  }
}

/**
 * Deepest nesting a JSON body may have. Real requests nest three or four levels; far deeper bodies
 * would overflow the stack when a nested value is turned back into text for the parameter list.
 */
export const MAX_JSON_DEPTH = 64;

/** Whether JSON text nests objects/arrays deeper than `max` (brackets inside strings do not count). */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === "\\") i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === "{" || ch === "[") {
      if (++depth > max) return true;
    } else if (ch === "}" || ch === "]") depth--;
  }
  return false;
}

/** What a refused JSON body is told, per way it can fail: each route words its own example. */
export interface JsonObjectWording {
  tooDeep: string;
  notJson: string | ((err: Error) => string);
  notObject: string;
}

/**
 * A JSON request body as an object; a 400 saying what to send when it nests deeper than
 * MAX_JSON_DEPTH (checked before parsing: a deeply nested value would overflow the stack when shown or
 * stored), is not JSON, or is not an object.
 */
export function jsonObjectOf(text: string, say: JsonObjectWording): Record<string, unknown> {
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) throw new HTTPException(400, { message: say.tooDeep });
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (err) {
    const message = typeof say.notJson === "string" ? say.notJson : say.notJson(err as Error);
    throw new HTTPException(400, { message });
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new HTTPException(400, { message: say.notObject });
  }
  return body as Record<string, unknown>;
}

async function jsonParams(c: Context): Promise<[string, string][]> {
  const body = jsonObjectOf(await c.req.text(), {
    tooDeep: `The JSON request body nests deeper than ${MAX_JSON_DEPTH} levels; send an object of parameters such as {"q":"maps","max":10}`,
    notJson:
      'The request body is not valid JSON; send an object of parameters such as {"q":"maps","max":10}, or the parameters form-encoded',
    notObject: 'A JSON request body must be an object of parameters, such as {"q":"maps","max":10}',
  });
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
