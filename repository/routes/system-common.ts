import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { type AppEnv, nowIso } from "../context.js";
import { requestText } from "../http/request-text.js";
import type { Change } from "../store/system/write.js";

/**
 * Shared plumbing of the system-configuration APIs (Administration and Management, Authentication
 * Management): the JSON envelope, the administrator check, and JSON request bodies.
 */

export type Ctx = Context<AppEnv>;

/** The service's JSON envelope (as the Content and Report APIs answer). */
export function ok(c: Ctx, value: unknown, status: ContentfulStatusCode = 200) {
  return c.json({ success: true, version: 1, value }, status);
}

export function changeBy(c: Ctx): Change {
  return { username: c.get("caller").user.username, at: nowIso(c) };
}

/** A JSON object request body; 400 saying what to send when it is not one. */
export async function jsonObject(c: Ctx, example: string): Promise<Record<string, unknown>> {
  const text = (await requestText(c.req)).trim();
  if (text === "")
    throw new HTTPException(400, { message: `The request body is empty; send JSON such as ${example}` });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HTTPException(400, {
      message: `The request body is not valid JSON; send JSON such as ${example}`,
    });
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new HTTPException(400, { message: `The request body must be a JSON object such as ${example}` });
  }
  return value as Record<string, unknown>;
}

/** Refuses fields the setting does not have (a typo must not pass silently as "saved"). */
export function onlyFields(body: Record<string, unknown>, allowed: readonly string[], example: string): void {
  const unknown = Object.keys(body).filter((k) => !allowed.includes(k));
  if (unknown.length > 0) {
    throw new HTTPException(400, {
      message: `Unknown field${unknown.length > 1 ? "s" : ""} ${unknown
        .slice(0, 5)
        .map((k) => JSON.stringify(k.slice(0, 40)))
        .join(", ")}; the fields are ${allowed.join(", ")}, e.g. ${example}`,
    });
  }
}

/** An integer field within bounds (numbers or numeric strings, as clients of this API send both). */
export function integerField(
  body: Record<string, unknown>,
  name: string,
  min: number,
  max: number,
): number | undefined {
  const v = body[name];
  if (v === undefined) return undefined;
  const n = typeof v === "string" && /^\s*-?\d+\s*$/.test(v) ? Number(v) : v;
  if (typeof n !== "number" || !Number.isInteger(n) || n < min || n > max) {
    throw new HTTPException(400, {
      message: `${name} must be a whole number from ${min} to ${max} (got ${JSON.stringify(v)?.slice(0, 40)})`,
    });
  }
  return n;
}

/** A boolean field (true/false or "true"/"false"). */
export function booleanField(body: Record<string, unknown>, name: string): boolean | undefined {
  const v = body[name];
  if (v === undefined) return undefined;
  if (v === true || v === "true") return true;
  if (v === false || v === "false") return false;
  throw new HTTPException(400, {
    message: `${name} must be true or false (got ${JSON.stringify(v)?.slice(0, 40)})`,
  });
}
