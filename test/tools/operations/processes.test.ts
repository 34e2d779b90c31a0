import { describe, expect, it } from "vitest";
import { ERAS, textOf } from "../../helpers/mcp.js";
import { useMcp, useRepository } from "../../helpers/use-mcp.js";

const FLAGS = ["--toolsets", "all"];

interface Answer {
  failed: { id: string; name: string; status: string; errors: { message: string }[] }[];
  failedTotal: number;
  history: { days: { date: string; failed: number; started: number }[]; quietDays: number };
  runningTotal: number;
}

describe.each(ERAS)("processes (%s)", (era) => {
  const repo = useRepository({ seed: "demo" });
  const mcp = useMcp({ user: "manager", flags: FLAGS, repo, era });
  const reader = useMcp({ user: "reader", flags: FLAGS, repo, era });

  it("names the failed OPEX ingest and why, with the history by day", async () => {
    const res = await mcp.raw("processes", { from: "2026-01-15", to: "2026-01-21" });
    expect(res.isError).toBeFalsy();
    const a = res.structuredContent as unknown as Answer;
    expect(a.failedTotal).toBe(1);
    const why = a.failed[0]?.errors.map((e) => e.message).join("\n") ?? "";
    expect(why).toMatch(/harbour-regatta-1911\.png/);
    expect(why).toMatch(/lifeboat-launch-1912\.png/);
    expect(a.history.days.find((d) => d.date === "2026-01-19")).toMatchObject({ failed: 1, started: 1 });
    expect(a.history.days.length + a.history.quietDays).toBe(7);
    const text = textOf(res);
    expect(text).toMatch(/Failed in the window: 1\./);
    expect(text).toMatch(/fixity|mismatch/i);
    expect(text).toMatch(/- 2026-01-19 1\/0\/1\/0/);

    // One process in detail: its error messages first.
    const one = await mcp.raw("processes", { process: a.failed[0]?.id ?? "" });
    expect(one.isError).toBeFalsy();
    expect(textOf(one)).toMatch(/Messages \(errors first\):\n- Error: /);
    expect(textOf(one)).toMatch(/harbour-regatta-1911\.png/);
  });

  it("shows a running Integrity Check, and nothing failed this week", async () => {
    const started = await mcp.call<{ job: string }>("control_workflow", {
      action: "start",
      folder: "@root@",
    });
    const stop = await mcp.call<{ confirmationRequired: { token: string } }>("control_workflow", {
      action: "stop",
      ids: [started.job],
    });
    await mcp.call("control_workflow", {
      action: "stop",
      ids: [started.job],
      confirmation: stop.confirmationRequired.token,
    });
    const a = await mcp.call<Answer>("processes", {});
    expect(a.failedTotal).toBe(0);
    expect(a.history.days.reduce((n, d) => n + d.started, 0)).toBeGreaterThanOrEqual(1);
  });

  it("is listed for a reader, who sees only their own processes", async () => {
    const names = (await reader.client.listTools()).tools.map((t) => t.name);
    expect(names).toContain("processes");
    const a = await reader.call<Answer>("processes", { from: "2026-01-15", to: "2026-01-21" });
    expect(a.failedTotal).toBe(0);
  });

  it("refuses a bad window and an unknown process", async () => {
    const bad = await mcp.raw("processes", { from: "2026-02-01", to: "2026-01-01" });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/from is after to/);
    const unknown = await mcp.raw("processes", { process: "11111111-2222-4333-8444-555555555555" });
    expect(unknown.isError).toBe(true);
  });
});
