import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { withToolTable } from "../../src/tools/docs.js";
import { ALL_TOOLS } from "../../src/tools/index.js";

const README = fileURLToPath(new URL("../../README.md", import.meta.url));

it("README's tool table matches the registry (UPDATE_README=1 refreshes it)", () => {
  const current = readFileSync(README, "utf8");
  const expected = withToolTable(current, ALL_TOOLS);
  if (process.env.UPDATE_README === "1" && expected !== current) writeFileSync(README, expected);
  else expect(current).toBe(expected);
  for (const t of ALL_TOOLS) expect(expected).toContain(`\`${t.name}\``);
});
