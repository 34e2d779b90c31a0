import { describe, expect, it } from "vitest";
import { ERAS, textOf } from "./helpers/mcp.js";
import { useMcp, useRepository } from "./helpers/use-mcp.js";

/**
 * A restricted session is told why (src/server/not-offered.ts, src/tools/support/access.ts): calling a tool it is
 * not offered answers with the reason and what to do, not the SDK's "Tool update_entity not found"; its
 * instructions describe only the flows it can use. Both protocol eras.
 */

describe.each(ERAS)("a tool this session is not offered (%s)", (era) => {
  const repo = useRepository({ seed: "demo" });
  const reader = useMcp({ user: "reader", era, repo });
  const readOnly = useMcp({ user: "manager", era, repo, flags: ["--read-only"] });
  const curator = useMcp({ user: "curator", era, repo });

  it("tells a reader which role update_entity needs and who they are, and changes nothing", async () => {
    const listed = (await reader.client.listTools()).tools.map((t) => t.name);
    expect(listed).not.toContain("update_entity");
    const res = await reader.raw("update_entity", {
      ref: "00000000-0000-0000-0000-000000000000",
      title: "x",
    });
    expect(res.isError).toBe(true);
    expect(textOf(res)).toBe(
      "`update_entity` (Change title or description) is not offered to you: it needs the curator role (or manager, administrator); you are signed in as reader with reader (ROLE_SDB_ACCESS_USER). An administrator can give you the role, or someone who holds it can make the change. Nothing was changed; `whoami` says what you may do.",
    );
  });

  it("says read-only mode is on to a manager of a read-only server", async () => {
    const res = await readOnly.raw("move_entity", { ref: "x", destination: "top" });
    expect(res.isError).toBe(true);
    expect(textOf(res)).toMatch(/^`move_entity` \(.*\) is not offered to you: read-only mode is on: /);
  });

  it("says a toolset is off, and leaves names no tool has to the protocol's own error", async () => {
    const off = await curator.raw("delete_entity", { ref: "x" });
    expect(textOf(off)).toContain("its toolset, lifecycle, is off on this server");
    await expect(curator.raw("no_such_tool", {})).rejects.toThrow(/Tool no_such_tool not found/);
  });

  it("gives a reader instructions without the write and confirmation flows, saying why", async () => {
    const reading = reader.client.getInstructions() ?? "";
    expect(reading).not.toMatch(/overwriting or deleting a fragment asks the person to confirm/i);
    expect(reading).not.toMatch(/Moving or re-tagging a folder/);
    expect(reading).toContain("is offered no tool that changes the repository");
    const curating = curator.client.getInstructions() ?? "";
    expect(curating).toMatch(/Moving or re-tagging a folder with its contents asks the person to confirm/);
    expect(curating).not.toContain("is offered no tool that changes the repository");
  });
});
