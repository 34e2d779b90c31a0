import { type AnyTool, DEFAULT_TOOLSETS, TOOLSETS, type Toolset } from "./define.js";

/**
 * The README's tool table, rendered from the registry so the docs cannot drift from what a model sees
 * (test/tools/readme.test.ts compares; UPDATE_README=1 rewrites the block between the markers).
 */
export const TOOLS_START =
  "<!-- tools:start (generated from src/tools; UPDATE_README=1 npm test refreshes) -->";
export const TOOLS_END = "<!-- tools:end -->";

function firstSentence(text: string): string {
  // "e.g." and "i.e." end no sentence.
  const m = text.match(/^(.+?(?<!\be\.g|\bi\.e)[.!?])(\s|$)/s);
  return (m?.[1] ?? text).replace(/\s+/g, " ").replace(/\|/g, "\\|");
}

export function renderToolTable(tools: readonly AnyTool[]): string {
  const lines: string[] = [];
  for (const set of Object.keys(TOOLSETS) as Toolset[]) {
    const inSet = tools.filter((t) => t.toolset === set);
    if (inSet.length === 0) continue;
    const dflt = DEFAULT_TOOLSETS.includes(set) ? " (default)" : "";
    lines.push(
      `**${set}**${dflt}: ${TOOLSETS[set].description}`,
      "",
      "| tool | what it does | kind |",
      "|---|---|---|",
    );
    for (const t of inSet) {
      const kind = t.annotations.readOnlyHint
        ? "read"
        : t.annotations.destructiveHint
          ? "destructive write"
          : "write";
      const roles = t.requiredRoles ? `; needs ${t.requiredRoles.join(" or ")}` : "";
      lines.push(`| \`${t.name}\` | ${firstSentence(t.description)} | ${kind}${roles} |`);
    }
    lines.push("");
  }
  return lines.join("\n").trimEnd();
}

/** Replaces the generated block in a README text; throws when the markers are missing. */
export function withToolTable(readme: string, tools: readonly AnyTool[]): string {
  const start = readme.indexOf(TOOLS_START);
  const end = readme.indexOf(TOOLS_END);
  if (start < 0 || end < start) throw new Error("README.md lacks the tools markers");
  return `${readme.slice(0, start + TOOLS_START.length)}\n${renderToolTable(tools)}\n${readme.slice(end)}`;
}
