import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * The import boundaries of the architecture, checked over the source rather than remembered:
 * - the repository service shares no code with the MCP server (an independent peer, so a bug cannot
 *   hide on both sides of the wire);
 * - the MCP server reaches the repository service only to start it (the command line and the embedded
 *   default);
 * - tools and resources talk to the service through the typed client, never through its HTTP or XML
 *   plumbing;
 * - the service client knows nothing of MCP;
 * - the MCP server's layers, from the top: the entries (cli.ts, fast-start.ts), start-up (cli/), the HTTP transport
 *   (http/), the server with its tool-call boundary (server/), tools and resources, the signed-in session
 *   (session/), the service client (api/). A layer imports only those below it, so start-up and the transport
 *   can change without touching a tool.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) return sourceFiles(path);
    return path.endsWith(".ts") ? [path] : [];
  });
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+"([^"]+)"|import\(\s*"([^"]+)"\s*\)/g;

/** Every module a file imports: package names as written, relative ones as paths from the root. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), "utf8");
  return [...text.matchAll(IMPORT)].map((m) => {
    const spec = (m[1] ?? m[2]) as string;
    if (!spec.startsWith(".")) return spec;
    return relative(ROOT, resolve(ROOT, dirname(file), spec)).replace(/\.js$/, ".ts");
  });
}

function violations(files: string[], forbidden: (target: string, file: string) => boolean): string[] {
  return files.flatMap((f) =>
    importsOf(f)
      .filter((t) => forbidden(t, f))
      .map((t) => `${f} -> ${t}`),
  );
}

describe("import boundaries", () => {
  const repository = sourceFiles("repository");
  const server = sourceFiles("src");

  it("finds the sources it checks", () => {
    expect(repository.length).toBeGreaterThan(50);
    expect(server.length).toBeGreaterThan(40);
    expect(importsOf("src/cli.ts")).toContain("repository/main.ts");
  });

  it("keeps the repository service free of the MCP server's code", () => {
    expect(violations(repository, (t) => t.startsWith("src/"))).toEqual([]);
  });

  it("lets the MCP server reach the repository service only to start it", () => {
    const starters = new Set(["src/cli.ts", "src/embedded.ts"]);
    expect(violations(server, (t, f) => t.startsWith("repository/") && !starters.has(f))).toEqual([]);
  });

  it("keeps tools, resources and live resources off the service client's HTTP and XML plumbing", () => {
    const callers = server.filter(
      (f) => f.startsWith("src/tools/") || f.startsWith("src/resources/") || f.startsWith("src/live/"),
    );
    expect(violations(callers, (t) => t === "src/api/http.ts" || t === "src/api/xml.ts")).toEqual([]);
  });

  it("lets only the entries (cli.ts, fast-start.ts) import start-up (src/cli/)", () => {
    const entries = new Set(["src/cli.ts", "src/fast-start.ts"]);
    expect(
      violations(server, (t, f) => t.startsWith("src/cli/") && !f.startsWith("src/cli/") && !entries.has(f)),
    ).toEqual([]);
  });

  it("lets only start-up choose the HTTP transport (src/http/)", () => {
    expect(
      violations(
        server,
        (t, f) => t.startsWith("src/http/") && !f.startsWith("src/http/") && !f.startsWith("src/cli/"),
      ),
    ).toEqual([]);
  });

  it("lets tools, resources and prompts reach the server only for its error wording", () => {
    const callers = server.filter((f) => /^src\/(tools|resources|prompts|live)\//.test(f));
    expect(violations(callers, (t) => t.startsWith("src/server/") && t !== "src/server/errors.ts")).toEqual(
      [],
    );
  });

  it("keeps the session below the server: no tools, server, transport or start-up in src/session/", () => {
    const session = server.filter((f) => f.startsWith("src/session/"));
    expect(session.length).toBeGreaterThan(0);
    expect(violations(session, (t) => /^src\/(tools|server|http|cli|identity)\//.test(t))).toEqual([]);
  });

  it("keeps the service client free of MCP", () => {
    const api = server.filter((f) => f.startsWith("src/api/"));
    expect(
      violations(api, (t) => t.startsWith("@modelcontextprotocol/") || t.startsWith("src/tools/")),
    ).toEqual([]);
  });
});
