import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../../../repository/seed.js";
import { OperationsApi } from "../../../src/api/operations.js";
import { Session } from "../../../src/session/session.js";
import { ERAS, startMcp, textOf } from "../../helpers/mcp.js";
import type { Preview } from "../../helpers/preview.js";
import { DEMO_USERS } from "../../helpers/repository.js";
import { useMcp, useRepository } from "../../helpers/use-mcp.js";

const FLAGS = ["--toolsets", "all"];

describe.each(ERAS)("control_workflow (%s)", (era) => {
  let session: Session;
  let ops: OperationsApi;
  const repo = useRepository({ seed: "demo" });
  const mcp = useMcp({ user: "manager", flags: FLAGS, repo, era });
  beforeAll(async () => {
    session = new Session({ url: repo.url, ...DEMO_USERS.manager, keepAlive: false });
    ops = new OperationsApi(session.http);
  });
  afterAll(async () => {
    await session?.close();
  });

  /**
   * A whole-repository check started through the service, not the tool: the tool waits for its job to end,
   * and these tests need one still running to stop and terminate.
   */
  async function running(): Promise<{ job: string; instance: string }> {
    const { instance, token } = await ops.start({
      contextName: "Integrity Check",
      parameters: { folder: "@root@" },
    });
    return { job: token ?? instance.token ?? instance.id, instance: instance.id };
  }

  async function state(id: string): Promise<string> {
    return (await ops.instance(id)).state;
  }

  it("starts an Integrity Check of a folder as a job and answers its outcome", async () => {
    const top = DEMO.entities.find((e) => e.type === "SO" && e.title === "Harbour Town Council")?.ref ?? "";
    const res = await mcp.raw("control_workflow", { action: "start", folder: top });
    expect(res.isError, textOf(res)).toBeFalsy();
    const a = res.structuredContent as { job: string; instance: string; folder: { title: string } };
    expect(a.folder.title).toBe("Harbour Town Council");
    expect(textOf(res)).toMatch(
      new RegExp(
        `^Integrity Check of “Harbour Town Council” \\(${top}\\), workflow instance #${a.instance}: (done \\(job ${a.job}\\)|still running as job ${a.job})`,
      ),
    );
    let s = await state(a.instance);
    for (let i = 0; i < 100 && s === "Active"; i++) {
      await new Promise((r) => setTimeout(r, 50));
      s = await state(a.instance);
    }
    expect(s).toBe("Completed");
    const st = await mcp.call<{ state: string }>("job_status", { job: a.job });
    expect(st.state).toBe("COMPLETED");
  });

  it("terminate: the preview changes nothing; the confirmed call aborts it", async () => {
    const started = await running();
    await mcp.call("control_workflow", {
      action: "stop",
      ids: [started.instance],
      confirmation: (await mcp.call<Preview>("control_workflow", { action: "stop", ids: [started.instance] }))
        .confirmationRequired.token,
    });
    expect(await state(started.instance)).toBe("Suspended");

    const p = await mcp.call<Preview>("control_workflow", { action: "terminate", ids: [started.job] });
    expect(p.confirmationRequired.summary).toBe("Terminate 1 of 1 workflow instance");
    expect(p.confirmationRequired.details[0]).toMatch(`#${started.instance} Integrity Check`);
    expect(await state(started.instance)).toBe("Suspended");

    const res = await mcp.raw("control_workflow", {
      action: "terminate",
      ids: [started.job],
      confirmation: p.confirmationRequired.token,
    });
    expect(res.isError).toBeFalsy();
    expect(res.structuredContent).toMatchObject({
      action: "terminate",
      changes: [{ id: started.instance, state: "Aborted", changed: true }],
    });
    expect(textOf(res)).toMatch(/^Terminate: 1 of 1 changed\./);
    expect(await state(started.instance)).toBe("Aborted");
  });

  it("refuses a confirmation when the instance changed since the preview", async () => {
    const started = await running();
    const p = await mcp.call<Preview>("control_workflow", { action: "terminate", ids: [started.instance] });
    await ops.change("stop", [started.instance]);
    const res = await mcp.raw("control_workflow", {
      action: "terminate",
      ids: [started.instance],
      confirmation: p.confirmationRequired.token,
    });
    expect(res.isError).toBe(true);
    expect(await state(started.instance)).toBe("Suspended");
    // A stopped instance finishes its current batch before it may resume (409 until then).
    let resumed = await mcp.raw("control_workflow", { action: "resume", ids: [started.instance] });
    for (let i = 0; i < 50 && resumed.isError && /finishing the batch/.test(textOf(resumed)); i++) {
      await new Promise((r) => setTimeout(r, 50));
      resumed = await mcp.raw("control_workflow", { action: "resume", ids: [started.instance] });
    }
    expect(resumed.isError, textOf(resumed)).toBeFalsy();
    expect((resumed.structuredContent as { changes: unknown[] }).changes[0]).toMatchObject({
      changed: true,
      state: "Active",
    });
  });

  it("refuses bad input, changing nothing", async () => {
    const noFolder = await mcp.raw("control_workflow", { action: "start" });
    expect(textOf(noFolder)).toMatch(/^Give `folder`/);
    const asset = await mcp.raw("control_workflow", {
      action: "start",
      folder: "11111111-2222-4333-8444-555555555555",
    });
    expect(asset.isError).toBe(true);
    const unknown = await mcp.raw("control_workflow", { action: "terminate", ids: ["999999"] });
    expect(textOf(unknown)).toMatch(/^No workflow instance 999999/);
    const elsewhere = await mcp.raw("control_workflow", {
      action: "start",
      context: "Move",
      folder: "@root@",
    });
    expect(elsewhere.isError).toBe(true);
    expect(textOf(elsewhere)).toMatch(/parent-ref|422/);
  });

  it("is not listed for a curator or a reader, and refused if called", async () => {
    for (const user of ["curator", "reader"] as const) {
      const other = await startMcp({ user, flags: FLAGS, repo, era });
      try {
        const names = (await other.client.listTools()).tools.map((t) => t.name);
        expect(names).not.toContain("control_workflow");
        expect(names).toContain("workflows");
        // Refused if called anyway, saying which role it needs (src/server/not-offered.ts); nothing started.
        const before = (await ops.instances({ max: 1 })).total;
        const res = await other
          .raw("control_workflow", { action: "start", folder: "@root@" })
          .catch((e: Error) => e);
        expect(res instanceof Error ? res.message : textOf(res)).toMatch(
          /`control_workflow` .* is not offered to you: it needs the \w+ role/,
        );
        expect((await ops.instances({ max: 1 })).total).toBe(before);
      } finally {
        await other.close();
      }
    }
  });
});
