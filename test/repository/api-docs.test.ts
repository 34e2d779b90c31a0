import { readdirSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../repository/app.js";
import { appRoutes } from "../../repository/http/allowed-methods.js";
import type { RunningRepository } from "../../repository/server.js";
import { startTestRepository } from "../helpers/repository.js";

/**
 * docs/repository-api.md and docs/repository-api/*.md against the routes the app serves: every route the app
 * mounts is named in the docs, and every route the docs name is served. The served routes come from the app
 * itself (its route table, as the 405 handler and the robustness test read it). The docs name a route in one
 * form (written down in docs/repository-api.md): a code span `` `METHOD /full/path` ``, path parameters in
 * braces, a query after `?`, optional parts in square brackets. Fenced blocks are examples (some show requests
 * to other servers, such as a webhook's receiver) and are not read.
 */

const DOCS = new URL("../../docs/", import.meta.url);
const METHODS = "GET|HEAD|POST|PUT|DELETE|PATCH";
/** A docs placeholder that stands for literal segments, not a parameter (docs/repository-api.md says so). */
const ALTERNATIVES: Record<string, string[]> = {
  path: ["structural-objects", "information-objects", "content-objects"],
};

interface Named {
  method: string;
  /** The path's segments, without the query and optional parts. */
  segments: string[];
  /** Where: `file:line: METHOD path` as written. */
  where: string;
}

/** Every route the docs name, and each place a route is written in another form. */
function readDocs(): { named: Named[]; misformed: string[] } {
  const files = [
    "repository-api.md",
    ...readdirSync(new URL("repository-api/", DOCS))
      .filter((f) => f.endsWith(".md"))
      .map((f) => `repository-api/${f}`),
  ];
  const named: Named[] = [];
  const misformed: string[] = [];
  for (const file of files) {
    // Fenced blocks become blank lines, so line numbers stay right.
    const text = readFileSync(new URL(file, DOCS), "utf8").replace(/^```[\s\S]*?^```/gm, (block) =>
      "\n".repeat(block.split("\n").length - 1),
    );
    for (const [i, line] of text.split("\n").entries()) {
      const at = `${file}:${i + 1}`;
      for (const [, span] of line.matchAll(/`([^`]*)`/g)) {
        const m = new RegExp(`^(${METHODS}) (/\\S*)`).exec(span as string);
        if (!m) continue;
        const path = (m[2] as string).split(/[?[]/)[0] as string;
        const where = `${at}: ${m[1]} ${m[2]}`;
        // A parameter is {name}: not :name or <name>, and a path is whole, never …/ or .../ after another.
        if (/\/:\w|<\w|…|\.\.\./.test(path))
          misformed.push(`${where} (write parameters as {name}, the path whole)`);
        else named.push({ method: m[1] as string, segments: segmentsOf(path), where });
      }
      for (const m of line.replace(/`[^`]*`/g, "").matchAll(new RegExp(`\\b(?:${METHODS}) /\\S*`, "g"))) {
        misformed.push(`${at}: ${m[0]} (write a route as a code span)`);
      }
    }
  }
  return { named, misformed };
}

/** A path's segments, split at slashes outside a Hono parameter's `{regex}`; a trailing slash is the same route. */
function segmentsOf(path: string): string[] {
  const trimmed = path.length > 1 ? path.replace(/\/$/, "") : path;
  const out: string[] = [];
  let depth = 0;
  let current = "";
  for (const ch of trimmed) {
    if (ch === "{") depth++;
    if (ch === "}") depth--;
    if (ch === "/" && depth === 0) {
      out.push(current);
      current = "";
    } else current += ch;
  }
  out.push(current);
  return out;
}

const isDocParam = (segment: string) => /^\{\w+\}$/.test(segment);
/** A served segment's parameter: its pattern (`.+` may span slashes), or "" for any one segment; null when literal. */
function servedParam(segment: string): string | null {
  const m = /^:\w+(?:\{(.+)\})?$/.exec(segment);
  return m ? (m[1] ?? "") : null;
}

/**
 * Whether a named path and a served route are the same route. `documents`: the name documents the route, so
 * each served parameter meets a parameter (an example's value does not document a route). Otherwise an
 * example's value may stand for a parameter, and only its being served is asked.
 */
function sameRoute(named: string[], served: string[], documents: boolean): boolean {
  const step = (i: number, j: number): boolean => {
    if (i === named.length || j === served.length) return i === named.length && j === served.length;
    const n = named[i] as string;
    const s = served[j] as string;
    const param = servedParam(s);
    if (param !== null) {
      // A last parameter matching `.+` (an S3 key, a PUID such as fmt/18) may take several segments.
      if (param === ".+" && j === served.length - 1) {
        const rest = named.slice(i);
        return documents ? rest.length === 1 && isDocParam(n) : rest.every((x) => x !== "");
      }
      if (isDocParam(n)) return step(i + 1, j + 1);
      if (documents || n === "" || (param !== "" && !new RegExp(`^(?:${param})$`).test(n))) return false;
      return step(i + 1, j + 1);
    }
    if (isDocParam(n)) return (ALTERNATIVES[n.slice(1, -1)] ?? []).includes(s) && step(i + 1, j + 1);
    return n === s && step(i + 1, j + 1);
  };
  return step(0, 0);
}

describe("docs/repository-api", () => {
  let repo: RunningRepository;
  beforeAll(async () => {
    repo = await startTestRepository({ seed: "none" });
  });
  afterAll(async () => repo?.close());

  it("write every route in the one form", () => {
    expect(readDocs().misformed).toEqual([]);
  });

  it("document every route the app serves, and no route it does not", () => {
    // The Entity API is one sub-app mounted twice (unversioned and /vX.Y): the docs describe it once.
    const served = appRoutes(createApp(repo.svc))
      .filter((r) => !r.path.startsWith("/api/entity/:version{"))
      .map((r) => ({ method: r.method, segments: segmentsOf(r.path), path: r.path }));
    const { named } = readDocs();
    const undocumented = served
      .filter((r) => !named.some((n) => n.method === r.method && sameRoute(n.segments, r.segments, true)))
      .map((r) => `${r.method} ${r.path}`);
    // HEAD is served wherever GET is.
    const unserved = named
      .filter((n) => {
        const method = n.method === "HEAD" ? "GET" : n.method;
        return !served.some((r) => r.method === method && sameRoute(n.segments, r.segments, false));
      })
      .map((n) => n.where);
    expect({ undocumented, unserved }).toEqual({ undocumented: [], unserved: [] });
  });
});
