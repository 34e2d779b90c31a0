import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { MemoryState } from "../../src/state/memory.js";
import { sharedStateContract } from "./contract.js";

sharedStateContract("in-process", async () => new MemoryState());

describe("MemoryState", () => {
  it("keeps the newest entries up to its cap", async () => {
    const s = new MemoryState(Date.now, 3);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const id = randomUUID();
      ids.push(id);
      await s.appendAudit({
        id,
        time: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
        user: "ann",
        tool: "create_folder",
        targets: [{ ref: "so-1", title: "Folder" }],
        argsDigest: "sha256:x",
        outcome: "done",
      });
    }
    const listed = await s.listAudit({ limit: 10 });
    expect(listed.total).toBe(3);
    expect(listed.entries.map((e) => e.id)).toEqual(ids.slice(2).reverse());
    expect(await s.findAudit(ids[0] as string)).toBeUndefined();
  });
});
