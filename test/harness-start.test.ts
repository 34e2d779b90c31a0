import { readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { describe, expect, it, vi } from "vitest";
import { startMcp } from "./helpers/mcp.js";
import { startTestRepository } from "./helpers/repository.js";

/**
 * The test harness's own starts, when they fail part-way: what they had started must not outlive them (a service
 * listening on, a store in the temporary directory), or the file that asked carries it until its worker ends.
 */
describe("a harness start that fails part-way", () => {
  const listening = () => process.getActiveResourcesInfo().filter((r) => r === "TCPServerWrap").length;

  it("startMcp closes the repository it started when our server cannot start (a refused flag)", async () => {
    const before = listening();
    await expect(startMcp({ flags: ["--no-such-flag"] })).rejects.toThrow(/no-such-flag/);
    // A closed server's handle leaves the list of active resources a few turns of the event loop later.
    await vi.waitFor(() => expect(listening()).toBe(before), { timeout: 2000 });
    expect(readdirSync(tmpdir())).toEqual([]);
  });

  it("startTestRepository leaves no store behind when the service cannot listen (a bad port)", async () => {
    // A clock of its own: the store is made anew by the service, not copied from the run's template.
    await expect(startTestRepository({ now: Date.now, port: 70_000 })).rejects.toThrow(/port/i);
    await expect(startTestRepository({ port: 70_000 })).rejects.toThrow(/port/i);
    expect(readdirSync(tmpdir())).toEqual([]);
  });
});
