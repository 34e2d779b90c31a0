#!/usr/bin/env node
/**
 * Keeps manifest.json (the MCP Bundle manifest) in step with the code: its `tools` are the tool registry
 * (`src/tools/index.ts`, read from the build in dist/), its `prompts` the prompt list (`src/prompts/index.ts`),
 * and its `version` is package.json's. `npx mcpb validate manifest.json` checks it against the MCPB schema
 * (it takes the manifest, not a packed .mcpb); test/bundle.test.ts runs both checks.
 *
 *   node scripts/manifest.mjs           rewrite manifest.json's tools, prompts and version (npm run manifest)
 *   node scripts/manifest.mjs --check   exit 1, naming the differences, when manifest.json has drifted
 *
 * Run `npm run build` first: the registry is read from dist/src/tools/index.js.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const ROOT = new URL("../", import.meta.url);

/** The manifest's tool list: every tool of the registry, in registry order, with its own description. */
export function toolEntries(tools) {
  return tools.map((t) => ({ name: t.name, description: t.description }));
}

/**
 * The manifest's prompt list: every prompt in prompts/list order, its argument names, and a text in MCPB's
 * template form (`${arguments.name}`) saying what the prompt asks; the server fills in titles and the exact
 * tool calls when the prompt is fetched over MCP.
 */
export function promptEntries(prompts) {
  return prompts.map((p) => {
    const names = Object.keys(p.args({}).shape);
    const given = names.map((n) => `${n}: \${arguments.${n}}`).join(", ");
    return {
      name: p.name,
      description: p.description,
      ...(names.length ? { arguments: names } : {}),
      text: `${p.title}${given ? ` (${given})` : ""}. ${p.description}`,
    };
  });
}

/** What should change in `manifest` so it matches `pkg`, `tools` and `prompts`: one line per difference. */
export function manifestDrift(manifest, pkg, tools, prompts) {
  const problems = [];
  if (manifest.version !== pkg.version) {
    problems.push(`version is ${manifest.version}, package.json says ${pkg.version}`);
  }
  const want = toolEntries(tools);
  const have = Array.isArray(manifest.tools) ? manifest.tools : [];
  const haveByName = new Map(have.map((t) => [t.name, t]));
  for (const t of want) {
    const h = haveByName.get(t.name);
    if (!h) problems.push(`tool ${t.name} is missing`);
    else if (h.description !== t.description) problems.push(`tool ${t.name} has an old description`);
  }
  const wantNames = new Set(want.map((t) => t.name));
  for (const t of have) if (!wantNames.has(t.name)) problems.push(`tool ${t.name} is not in the registry`);
  if (problems.length === 0 && have.map((t) => t.name).join() !== want.map((t) => t.name).join()) {
    problems.push("tools are not in registry order");
  }
  if (JSON.stringify(manifest.prompts ?? []) !== JSON.stringify(promptEntries(prompts))) {
    problems.push("prompts differ from src/prompts/index.ts");
  }
  return problems;
}

export async function loadPrompts() {
  const url = new URL("dist/src/prompts/index.js", ROOT);
  try {
    return (await import(url.href)).ALL_PROMPTS;
  } catch (err) {
    throw new Error(`cannot load the prompts from dist/ (run npm run build first): ${err.message}`);
  }
}

export async function loadRegistry() {
  const url = new URL("dist/src/tools/index.js", ROOT);
  try {
    return (await import(url.href)).ALL_TOOLS;
  } catch (err) {
    throw new Error(`cannot load the tool registry from dist/ (run npm run build first): ${err.message}`);
  }
}

export function readJson(relative) {
  return JSON.parse(readFileSync(new URL(relative, ROOT), "utf8"));
}

async function main(args) {
  const manifest = readJson("manifest.json");
  const pkg = readJson("package.json");
  const tools = await loadRegistry();
  const prompts = await loadPrompts();
  const drift = manifestDrift(manifest, pkg, tools, prompts);
  if (args.includes("--check")) {
    if (drift.length === 0) return 0;
    process.stderr.write(
      `manifest.json has drifted from the code (run npm run manifest):\n  ${drift.join("\n  ")}\n`,
    );
    return 1;
  }
  manifest.version = pkg.version;
  manifest.tools = toolEntries(tools);
  manifest.prompts = promptEntries(prompts);
  writeFileSync(new URL("manifest.json", ROOT), `${JSON.stringify(manifest, null, 2)}\n`);
  process.stderr.write(
    drift.length ? `manifest.json updated:\n  ${drift.join("\n  ")}\n` : "manifest.json is up to date\n",
  );
  return 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      process.stderr.write(`manifest: ${err.message}\n`);
      process.exitCode = 1;
    },
  );
}
