import type { Context } from "hono";

/**
 * Request parameters from the query string and, for POST/PUT, a form-encoded or multipart body, merged
 * (body after query). Real clients send the same parameters either way, sometimes repeated.
 */
export async function requestParams(c: Context): Promise<URLSearchParams> {
  const params = new URL(c.req.url).searchParams;
  if (c.req.method === "POST" || c.req.method === "PUT") {
    const type = c.req.header("content-type") ?? "";
    if (type.includes("application/x-www-form-urlencoded")) {
      for (const [k, v] of new URLSearchParams(await c.req.text())) params.append(k, v);
    } else if (type.includes("multipart/form-data")) {
      const form = await c.req.formData();
      for (const [k, v] of form) if (typeof v === "string") params.append(k, v);
    }
  }
  return params;
}

/** "true"/"1"/"yes" (any case) is true; anything else false. */
export function flag(value: string | null): boolean {
  return value !== null && /^(true|1|yes)$/i.test(value.trim());
}
