import { describe, expect, it } from "vitest";
import { DISCOVERY_TOOLS } from "../../../src/tools/discovery/index.js";
import { useMcp } from "../../helpers/use-mcp.js";

const NAMES = [
  "search",
  "browse",
  "get_entity",
  "read_metadata",
  "get_file",
  "find_by_identifier",
  "list_events",
  "list_changes",
];

describe("the discovery tools in tools/list", () => {
  const mcp = useMcp({ user: "reader", flags: ["--read-only"] });
  const manager = useMcp({ user: "manager", repo: mcp.repo });

  it("are all listed, even read-only and for a reader, each read-only and closed-world with every hint set", async () => {
    const { tools } = await mcp.client.listTools();
    const discovery = tools.filter((t) => NAMES.includes(t.name));
    expect(discovery.map((t) => t.name)).toEqual(NAMES);
    for (const t of discovery) {
      expect(t.annotations, t.name).toMatchObject({
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      });
      expect(t.title, t.name).toBeTruthy();
      expect(t.description?.length, t.name).toBeLessThan(300);
      expect(t.outputSchema?.type, t.name).toBe("object");
      expect(t.inputSchema).not.toHaveProperty("anyOf");
      expect(t.inputSchema).not.toHaveProperty("oneOf");
      for (const [param, schema] of Object.entries(t.inputSchema.properties ?? {})) {
        expect((schema as { description?: string }).description, `${t.name}.${param}`).toBeTruthy();
      }
    }
    expect(DISCOVERY_TOOLS.every((t) => t.toolset === "discovery")).toBe(true);
  });

  it("name the tool that finds each ref they take", async () => {
    const { tools } = await mcp.client.listTools();
    for (const t of tools.filter((x) => NAMES.includes(x.name))) {
      for (const [param, schema] of Object.entries(t.inputSchema.properties ?? {})) {
        const d = (schema as { description?: string }).description ?? "";
        if (/\bref\b/i.test(param) || param === "within" || param === "mref" || param === "event") {
          expect(d, `${t.name}.${param}`).toMatch(/`(search|browse|get_entity|list_events)`|this tool/);
        }
      }
    }
  });

  it("come first in the default tool list, then the session tools (the budget of the whole list is in registry.test.ts)", async () => {
    const { tools } = await manager.client.listTools();
    const names = tools.map((t) => t.name);
    expect(names.slice(0, NAMES.length + 2)).toEqual([...NAMES, "whoami", "complete_sign_in"]);
  });
});
