import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Progress } from "../../../src/api/actions.js";
import { secondsLeft } from "../../../src/tools/support/job-wait.js";
import { ERAS, textOf } from "../../helpers/mcp.js";
import { tempDir } from "../../helpers/temp-dir.js";
import { useMcp, useRepository } from "../../helpers/use-mcp.js";
import { asset, folder } from "../structure/support.js";

/**
 * The brief wait every job-starting tool makes (src/tools/support/job-wait.ts): work that finishes at once is
 * answered as done (the tools' own tests show that); work still running after the wait is handed back as a
 * job handle, saying so, with progress notifications while it waited, and the audit log says "started".
 */

describe.each(ERAS)("a job still running after the wait (%s)", (era) => {
  const work = tempDir("pmcp-job-wait-");
  const auditPath = join(work, "audit.jsonl");
  const repo = useRepository({ seed: "none" });
  beforeAll(async () => {
    // The service's runner stops taking work, so every job it accepts stays ACTIVE: the one way to make a
    // move outlast the wait without slowing the test. A 3 s tool deadline makes the wait 1 s.
    await repo.svc.actions.close();
  });
  const mcp = useMcp({
    user: "manager",
    repo,
    era,
    flags: ["--toolsets", "all"],
    env: { PRESERVATION_TOOL_TIMEOUT_SECS: "3", PRESERVATION_AUDIT_LOG: auditPath },
  });

  it("answers the job handle, says it is still running and how to follow it; the audit says started", async () => {
    const a = folder(repo, "Boxes");
    const b = folder(repo, "Shelves");
    const box = asset(repo, "Box 12", a);
    const notes: string[] = [];
    const started = Date.now();
    const res = await mcp.client.callTool(
      { name: "move_entity", arguments: { ref: box.ref, destination: b.ref } },
      { onprogress: (p) => notes.push(p.message ?? "") },
    );
    const waited = Date.now() - started;
    expect(res.isError, textOf(res)).toBeFalsy();
    const out = res.structuredContent as { job: string; state: string; finished: boolean };
    expect(out).toMatchObject({ state: "ACTIVE", finished: false });
    expect(textOf(res)).toContain(
      `Moving asset “Box 12” from “/Boxes” to “/Shelves”: still running as job ${out.job}; the service gives no estimate yet. Follow it with \`job_status\` (waitSeconds waits for it).`,
    );
    expect(waited).toBeGreaterThanOrEqual(900);
    expect(notes.length).toBeGreaterThan(0);
    const entries = readFileSync(auditPath, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(entries.at(-1)).toMatchObject({ tool: "move_entity", outcome: "started", job: out.job });
  });
});

describe("how long a running job will likely take, from the service's progress", () => {
  const at = Date.parse("2026-01-01T10:00:10Z");
  const p = (over: Partial<Progress>): Progress => ({
    token: "t",
    status: "ACTIVE",
    created: "2026-01-01T10:00:00Z",
    errors: [],
    ...over,
  });

  it("scales the time spent by what remains: percentage first, else items done of the total", () => {
    expect(secondsLeft(p({ percentage: 25 }), at)).toBe(30);
    expect(secondsLeft(p({ total: 10, done: 5 }), at)).toBe(10);
  });

  it("gives no estimate with nothing to go on (no start, nothing done yet)", () => {
    expect(secondsLeft(p({ percentage: 0 }), at)).toBeUndefined();
    expect(secondsLeft(p({ created: undefined, percentage: 50 }), at)).toBeUndefined();
    expect(secondsLeft(p({}), at)).toBeUndefined();
  });
});
