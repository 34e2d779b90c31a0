/**
 * The methods each path of an app answers, from the app's own route table: so a request with the
 * wrong method gets a 405 naming the right ones (and a test can list every route the app serves).
 */

export interface RouteEntry {
  method: string;
  /** The route's path pattern as registered, e.g. `/api/entity/structural-objects/:ref`. */
  path: string;
}

/** The app's routes (handlers, not middleware), without duplicates. */
export function appRoutes(app: { routes: readonly { method: string; path: string }[] }): RouteEntry[] {
  const seen = new Set<string>();
  const out: RouteEntry[] = [];
  for (const r of app.routes) {
    if (r.method === "ALL" || r.path.endsWith("*")) continue;
    const key = `${r.method} ${r.path}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ method: r.method, path: r.path });
  }
  return out;
}

/** A regular expression matching the paths a Hono route pattern matches. */
export function patternRegex(path: string): RegExp {
  let re = "";
  let i = 0;
  while (i < path.length) {
    const ch = path[i] as string;
    if (ch === ":") {
      const m = /^:[A-Za-z_][\w]*(?:\{((?:[^{}]|\{[^{}]*\})+)\})?/.exec(path.slice(i));
      if (m) {
        re += m[1] ? `(?:${m[1]})` : "[^/]+";
        i += m[0].length;
        continue;
      }
    }
    re += ch === "*" ? ".*" : ch.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    i++;
  }
  return new RegExp(`^${re}$`);
}

/**
 * Builds a look-up: the methods that have a route matching `path` (HEAD implied by GET). The patterns are
 * compiled on the first look-up (a request no route answered), not when the app is made: the embedded service
 * is made at every start of the MCP server, and a start rarely meets a wrong method.
 */
export function allowedMethodsOf(routes: readonly RouteEntry[]): (path: string) => string[] {
  let compiled: { method: string; re: RegExp }[] | undefined;
  return (path) => {
    compiled ??= routes.map((r) => ({ method: r.method, re: patternRegex(r.path) }));
    const methods = new Set<string>();
    for (const r of compiled) if (r.re.test(path)) methods.add(r.method);
    if (methods.has("GET")) methods.add("HEAD");
    return ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH"].filter((m) => methods.has(m));
  };
}
