import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../../../repository/seed/demo.js";
import type { RunningRepository } from "../../../repository/server.js";
import { startTestRepository } from "../../helpers/repository.js";
import { ENTITY_NS, XIP_NS } from "../entity-xml.js";
import { accepted, E, putText, settled } from "../writes/structure-helpers.js";
import { expectRefused, sendXml, signIn, type Users } from "../writes/write-helpers.js";
import {
  arr,
  finished,
  INTEGRITY_CHECK_CONTEXT,
  ids,
  instance,
  instanceOfToken,
  postXml,
  startCheck,
  startRequest,
  text,
  WF,
  WF_NS,
  walkInstances,
  wfXml,
} from "./ops-helpers.js";

/** The demo collection comes with a past operations history (its instances are numbered first). */
const SEEDED_COUNT = DEMO.operations.actions.length;
/** Instance ids of a listing, leaving out the seeded history. */
const fresh = (list: Parameters<typeof ids>[0]) => ids(list).filter((id) => id > SEEDED_COUNT);

/**
 * The Workflow API over real HTTP: instances are the service's real actions (a move and a deletion
 * made through the Entity API show up with the right context and state; the deletion awaiting
 * approval is a human task a manager decides), definitions and contexts, starting the Integrity
 * Check, terminating, stopping and resuming, paging, and who may do and see what.
 */

const NS = ENTITY_NS("7.7");
const XIP = XIP_NS("7.7");
const deletion = (comment: string) =>
  `<DeletionAction xmlns="${NS}" xmlns:xip="${XIP}"><Submission><Comment>${comment}</Comment></Submission></DeletionAction>`;
const taskResult = (outcome: string, comment = "checked") =>
  `<HumanTaskResult xmlns="${WF_NS}"><Outcome>${outcome}</Outcome><Comment>${comment}</Comment></HumanTaskResult>`;

/** The smallest demo folder with content: "Harbour Master's Journals". */
const SMALL_FOLDER = "1bcdc103-98c3-4998-80a5-dc3dbb112160";
const COUNCIL = DEMO.rootFolders[0]?.ref as string;
const BOARD = DEMO.rootFolders[1]?.ref as string;

let repo: RunningRepository;
let u: Users;
const tokens = {} as Record<"move" | "deletion", string>;

beforeAll(async () => {
  repo = await startTestRepository({ seed: "demo" });
  u = await signIn(repo);
  // Real actions through the Entity API: the curator moves an asset, the manager asks for a deletion.
  tokens.move = await accepted(
    await putText(u.curator, `${E}/information-objects/${DEMO.refs.csvAsset}/parent-ref`, BOARD),
  );
  expect((await settled(u.curator, tokens.move)).status).toBe("COMPLETED");
  tokens.deletion = await accepted(
    await sendXml(
      u.manager,
      "DELETE",
      `${E}/information-objects/${DEMO.refs.pngAsset}`,
      deletion("duplicate scan"),
    ),
  );
});
afterAll(async () => {
  await repo?.close();
});

describe("instances are the service's actions", () => {
  it("shows the curator's move as a completed Data Management instance, with every child clients require", async () => {
    const listed = await instanceOfToken(u.manager, tokens.move);
    const id = Number(text(listed.Id));
    const one = await instance(u.manager, id);
    expect(text(one.State)).toBe("Completed");
    expect(text(one.DisplayState)).toBe("Completed");
    expect(text(one.ArchivalProcessId)).toBe(tokens.move);
    expect(text(one.WorkflowGroupId)).toBe(tokens.move);
    expect(text(one.WorkflowContextId)).toBe("3");
    expect(text(one.WorkflowContextName)).toBe("Move");
    expect(text(one.WorkflowDefinitionTextId)).toBe("com.preservica.core.workflow.move");
    expect(text(one.Type)).toBe("DataManagement");
    expect(text(one.Creator)).toBe("curator");
    expect(one.Entity["@ref"]).toBe(DEMO.refs.csvAsset);
    // Dates as clients parse them (%Y-%m-%dT%H:%M:%S.%fZ); the single document names them StartDate /
    // FinishDate (pyPreservica 3.4.4 crashes on Started / Finished there), the list Started / Finished.
    expect(text(one.StartDate)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(text(one.FinishDate)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(one.Started).toBeUndefined();
    expect(text(listed.Started)).toBe(text(one.StartDate));
    expect(text(listed.Finished)).toBe(text(one.FinishDate));
    expect(Number(text(one.Progress.Done))).toBe(2); // the asset and its content object
  });

  it("shows the deletion awaiting approval as Pending, saying what it waits for", async () => {
    const d = await instanceOfToken(u.manager, tokens.deletion);
    expect(text(d.State)).toBe("Pending");
    expect(text(d.DisplayState)).toMatch(/awaiting a manager's approval/);
    expect(text(d.WorkflowContextName)).toBe("Deletion");
  });

  it("filters by type, state, context, creator and dates (as pyPreservica sends them)", async () => {
    const q = (query: string) => wfXml(u.manager, `${WF}/instances?${query}`);
    const moveId = Number(text((await instanceOfToken(u.manager, tokens.move)).Id));
    const deletionId = Number(text((await instanceOfToken(u.manager, tokens.deletion)).Id));
    expect(ids(await q("type=DataManagement&state=Completed"))).toContain(moveId);
    expect(ids(await q("type=DataManagement&state=Completed"))).not.toContain(deletionId);
    expect(ids(await q("type=DataManagement&state=Pending"))).toEqual([deletionId]);
    expect(fresh(await q("type=Ingest&state=Completed"))).toEqual([]);
    expect(ids(await q("contextId=3"))).toEqual([moveId]);
    expect(fresh(await q("creator=curator"))).toEqual([moveId]);
    expect(ids(await q("creator=nobody"))).toEqual([]);
    // pyPreservica's parse_date_to_iso: microseconds and a +0000 offset, percent-encoded by requests.
    const fmt = (d: Date) => `${d.toISOString().slice(0, 19)}.000000+0000`;
    const hourAgo = fmt(new Date(Date.now() - 3_600_000));
    const inAnHour = fmt(new Date(Date.now() + 3_600_000));
    const dated = await q(`from=${encodeURIComponent(hourAgo)}&to=${encodeURIComponent(inAnHour)}`);
    expect(ids(dated)).toEqual(expect.arrayContaining([moveId, deletionId]));
    expect(fresh(await q(`to=${encodeURIComponent(hourAgo)}`))).toEqual([]);
    // A "+" that arrived unencoded (a space) is repaired rather than refused.
    expect(ids(await q(`from=${hourAgo}`))).toEqual(expect.arrayContaining([moveId, deletionId]));
  });

  it("refuses filters it cannot read with a 400 that lists the accepted values", async () => {
    for (const [query, message] of [
      ["state=Done", /state must be one of Aborted, Active, Completed/],
      ["type=Backup", /type must be one of Ingest, Access, Transformation, DataManagement/],
      ["from=yesterday", /from must be an ISO 8601 date/],
      ["contextId=x", /contextId must be a positive whole number/],
      ["max=0", /max must be at least 1/],
    ] as const) {
      const res = await u.manager(`${WF}/instances?${query}`);
      expect(res.status, query).toBe(400);
      expect(((await res.json()) as { message: string }).message).toMatch(message);
    }
  });

  it("shows other users only the instances they started; 403 for another's instance; 401 without a token", async () => {
    const moveId = text((await instanceOfToken(u.manager, tokens.move)).Id);
    const deletionId = text((await instanceOfToken(u.manager, tokens.deletion)).Id);
    const curatorList = await wfXml(u.curator, `${WF}/instances`);
    expect(fresh(curatorList)).toEqual([Number(moveId)]);
    const seededByCurator = DEMO.operations.actions.filter((a) => a.username === "curator").length;
    expect(text(curatorList.TotalCount)).toBe(String(1 + seededByCurator));
    const readerList = await wfXml(u.reader, `${WF}/instances`);
    expect(text(readerList.TotalCount)).toBe("0");
    expect(text(readerList.Count)).toBe("0");
    await instance(u.curator, moveId);
    const res = await u.curator(`${WF}/instances/${deletionId}`);
    expect(res.status).toBe(403);
    expect(((await res.json()) as { message: string }).message).toMatch(/started by manager/);
    expect((await fetch(`${repo.url}${WF}/instances`)).status).toBe(401);
    expect((await u.manager(`${WF}/instances/999999`)).status).toBe(404);
  });

  it("shows input and output parameters to administrators who ask, never to others", async () => {
    const moveId = text((await instanceOfToken(u.manager, tokens.move)).Id);
    const asked = await instance(u.manager, moveId, "includeParameters=true");
    const input = arr(asked.InputParameters.Parameter);
    expect(input.find((p) => text(p.Key) === "destination")?.Value).toBe(BOARD);
    const output = arr(asked.OutputParameters.Parameter);
    expect(text(output.find((p) => text(p.Key) === "status")?.Value)).toBe("COMPLETED");
    expect((await instance(u.manager, moveId)).InputParameters).toBeUndefined();
    // The curator started it, and asks: still no parameter values.
    const curatorView = await instance(u.curator, moveId, "includeParameters=true&includeErrors=true");
    expect(curatorView.InputParameters).toBeUndefined();
    expect(curatorView.OutputParameters).toBeUndefined();
    expect(curatorView.Errors).toBeDefined();
  });
});

describe("human tasks", () => {
  it("lists the pending deletion as a task for managers, and lets only a manager decide it", async () => {
    const deletionId = text((await instanceOfToken(u.manager, tokens.deletion)).Id);
    const tasks = await wfXml(u.manager, `${WF}/humantasks`);
    expect(text(tasks.TotalCount)).toBe("1");
    const task = arr(tasks.HumanTask)[0];
    expect(text(task.Id)).toBe(deletionId);
    expect(text(task.Description)).toContain("The North Quay at low tide, 1890");
    expect(text(task.Description)).toContain("duplicate scan");
    expect(arr(task.Outcomes.Outcome).map(text)).toEqual(["approve", "reject"]);
    const one = await wfXml(u.manager, `${WF}/humantasks/${deletionId}`);
    expect(text(one.Id)).toBe(deletionId);
    expect(one.Entity["@ref"]).toBe(DEMO.refs.pngAsset);
    expect((await u.curator(`${WF}/humantasks/${deletionId}`)).status).toBe(403);
    expect(text((await wfXml(u.curator, `${WF}/humantasks`)).TotalCount)).toBe("0");

    // The curator is not a manager: 403, nothing changes.
    await expectRefused(
      repo,
      () => postXml(u.curator, `${WF}/humantasks/${deletionId}/result`, taskResult("approve")),
      403,
      /Only managers decide deletions/,
    );
    await expectRefused(
      repo,
      () => postXml(u.manager, `${WF}/humantasks/${deletionId}/result`, taskResult("maybe")),
      400,
      /Outcome must be approve or reject/,
    );

    const decided = await wfXml(u.manager, `${WF}/humantasks/${deletionId}/result`, 202, {
      method: "POST",
      headers: { "Content-Type": "application/xml;charset=UTF-8" },
      body: taskResult("approve", "confirmed duplicate"),
    });
    expect(text(decided.Id)).toBe(deletionId);
    const done = await finished(u.manager, deletionId);
    expect(text(done.State)).toBe("Completed");
    // Exactly what the Entity API's approval does: the asset is in the recycle bin.
    expect((await u.manager(`${E}/information-objects/${DEMO.refs.pngAsset}`)).status).toBe(404);
    const approvedBy = repo.svc.db
      .prepare("SELECT json_extract(params, '$.approvedBy') AS who FROM actions WHERE id = ?")
      .get(tokens.deletion) as { who: string };
    expect(approvedBy.who).toBe("manager");
    expect(text((await wfXml(u.manager, `${WF}/humantasks`)).TotalCount)).toBe("0");
    await expectRefused(
      repo,
      () => postXml(u.manager, `${WF}/humantasks/${deletionId}/result`, taskResult("approve")),
      409,
      /no longer awaiting a decision/,
    );
  });

  it("rejects a deletion: Aborted, nothing deleted", async () => {
    const token = await accepted(
      await sendXml(
        u.manager,
        "DELETE",
        `${E}/information-objects/${DEMO.refs.wavAsset}`,
        deletion("mistake"),
      ),
    );
    const id = text((await instanceOfToken(u.manager, token)).Id);
    const after = await wfXml(u.manager, `${WF}/humantasks/${id}/result`, 202, {
      method: "POST",
      headers: { "Content-Type": "application/xml;charset=UTF-8" },
      body: taskResult("reject", "keep it"),
    });
    expect(text(after.State)).toBe("Aborted");
    expect(text(after.Message)).toMatch(/Rejected by manager: keep it; nothing was deleted/);
    expect((await u.manager(`${E}/information-objects/${DEMO.refs.wavAsset}`)).status).toBe(200);
  });

  it("has no task for an instance that is not a deletion", async () => {
    const moveId = text((await instanceOfToken(u.manager, tokens.move)).Id);
    expect((await u.manager(`${WF}/humantasks/${moveId}`)).status).toBe(404);
  });
});

describe("definitions and contexts", () => {
  it("lists contexts by type and by definition, each with an Id and a Name", async () => {
    const names = async (query: string) =>
      arr((await wfXml(u.reader, `${WF}/contexts?${query}`)).WorkflowContext).map((c) => text(c.Name));
    expect(await names("type=Ingest")).toEqual(["Ingest"]);
    expect(await names("type=Access")).toEqual(["Export"]);
    expect(await names("type=DataManagement")).toEqual(
      expect.arrayContaining(["Move", "Deletion", "Integrity Check", "Metadata CSV Edit"]),
    );
    expect(await names("type=Transformation")).toEqual([]);
    expect(await names("workflowDefinitionId=com.preservica.core.workflow.ingest")).toEqual(["Ingest"]);
    expect(await names("workflowDefinitionId=11")).toEqual(["Integrity Check"]);
    expect(await names("workflowDefinitionId=org.example.none")).toEqual([]);
    const check = await wfXml(u.reader, `${WF}/contexts/${INTEGRITY_CHECK_CONTEXT}`);
    expect(text(check.Startable)).toBe("true");
    const move = await wfXml(u.reader, `${WF}/contexts/3`);
    expect(text(move.Startable)).toBe("false");
    expect(text(move.StartedBy)).toMatch(/parent-ref/);
    expect((await u.reader(`${WF}/contexts?type=Backup`)).status).toBe(400);
  });

  it("stores an uploaded definition (managers only), refuses malformed ones, and cannot start it", async () => {
    const doc = `<WorkflowDefinition xmlns="${WF_NS}" id="org.example.workflow.review" name="Review" type="DataManagement"><Description>Reviews things</Description><Steps><Step>look</Step></Steps></WorkflowDefinition>`;
    await expectRefused(
      repo,
      () => postXml(u.curator, `${WF}/definitions`, doc),
      403,
      /Only managers and administrators/,
    );
    await expectRefused(
      repo,
      () => postXml(u.manager, `${WF}/definitions`, "<WorkflowDefinition><Name>x</Name>"),
      400,
      /not well-formed XML/,
    );
    await expectRefused(
      repo,
      () =>
        postXml(
          u.manager,
          `${WF}/definitions`,
          `<WorkflowDefinition xmlns="${WF_NS}" name="No id" type="Ingest"/>`,
        ),
      400,
      /needs an id/,
    );
    await expectRefused(
      repo,
      () => postXml(u.manager, `${WF}/definitions`, doc.replace('type="DataManagement"', 'type="Backup"')),
      400,
      /type must be one of/,
    );

    const created = await wfXml(u.manager, `${WF}/definitions`, 201, {
      method: "POST",
      headers: { "Content-Type": "application/xml;charset=UTF-8" },
      body: doc,
    });
    expect(text(created.TextId)).toBe("org.example.workflow.review");
    expect(text(created.BuiltIn)).toBe("false");
    expect(text(created.Runnable)).toBe("false");
    const id = text(created.Id);
    expect(text((await wfXml(u.reader, `${WF}/definitions/${id}`)).TextId)).toBe(
      "org.example.workflow.review",
    );
    expect(text((await wfXml(u.reader, `${WF}/definitions/org.example.workflow.review`)).Id)).toBe(id);
    expect((await u.reader(`${WF}/definitions/org.example.none`)).status).toBe(404);
    expect((await u.reader(`${WF}/definitions/${id}/document`)).status).toBe(200);
    expect(await (await u.reader(`${WF}/definitions/org.example.workflow.review/document`)).text()).toBe(doc);
    expect(
      arr((await wfXml(u.reader, `${WF}/definitions`)).WorkflowDefinition).map((d) => text(d.TextId)),
    ).toContain("org.example.workflow.review");
    expect((await u.reader(`${WF}/definitions/com.preservica.core.workflow.move/document`)).status).toBe(404);
    await expectRefused(repo, () => postXml(u.manager, `${WF}/definitions`, doc), 409, /already exists/);

    // A context for it can be made (managers only), but nothing here runs an uploaded definition.
    const contextBody = `<WorkflowContext xmlns="${WF_NS}"><Name>Quarterly review</Name><WorkflowDefinitionId>${id}</WorkflowDefinitionId></WorkflowContext>`;
    await expectRefused(
      repo,
      () => postXml(u.curator, `${WF}/contexts`, contextBody),
      403,
      /Only managers and administrators may create/,
    );
    const ctx = await wfXml(u.manager, `${WF}/contexts`, 201, {
      method: "POST",
      headers: { "Content-Type": "application/xml;charset=UTF-8" },
      body: contextBody,
    });
    expect(text(ctx.Startable)).toBe("false");
    await expectRefused(
      repo,
      () =>
        postXml(
          u.manager,
          `${WF}/instances`,
          startRequest(COUNCIL, { context: Number(text(ctx.Id)), name: "Quarterly review" }),
        ),
      422,
      /no engine to run uploaded definitions/,
    );
  });
});

describe("starting, terminating, stopping and resuming", () => {
  it("starts an Integrity Check (201) whose correlation id and parameters are kept", async () => {
    const started = await startCheck(u.manager, SMALL_FOLDER, "corr-1");
    expect(text(started.WorkflowContextName)).toBe("Integrity Check");
    expect(text(started.CorrelationId)).toBe("corr-1");
    const done = await finished(u.manager, text(started.Id));
    expect(text(done.State)).toBe("Completed");
    const withParams = await instance(u.manager, text(started.Id), "includeParameters=true");
    expect(arr(withParams.InputParameters.Parameter).map((p) => [text(p.Key), text(p.Value)])).toEqual([
      ["folder", SMALL_FOLDER],
    ]);
    const out = arr(withParams.OutputParameters.Parameter);
    expect(Number(text(out.find((p) => text(p.Key) === "verified")?.Value))).toBeGreaterThan(0);
  });

  it("refuses starts it cannot do, changing nothing", async () => {
    await expectRefused(
      repo,
      () => postXml(u.curator, `${WF}/instances`, startRequest(COUNCIL)),
      403,
      /Only managers and administrators may start/,
    );
    await expectRefused(
      repo,
      () => postXml(u.manager, `${WF}/instances`, startRequest(COUNCIL, { context: 3, name: "Move" })),
      422,
      /cannot be started here: a move starts with PUT/,
    );
    await expectRefused(
      repo,
      () => postXml(u.manager, `${WF}/instances`, startRequest(COUNCIL, { context: 1, name: "Ingest" })),
      422,
      /an ingest starts when a package is uploaded/,
    );
    await expectRefused(
      repo,
      () => postXml(u.manager, `${WF}/instances`, startRequest(COUNCIL, { context: 99 })),
      404,
      /No workflow context with id 99/,
    );
    await expectRefused(
      repo,
      () => postXml(u.manager, `${WF}/instances`, startRequest(COUNCIL, { name: "Move" })),
      400,
      /is the context "Integrity Check", not "Move"/,
    );
    await expectRefused(
      repo,
      () => postXml(u.manager, `${WF}/instances`, startRequest(DEMO.refs.pdfAsset)),
      400,
      /is not a folder/,
    );
    await expectRefused(
      repo,
      () => postXml(u.manager, `${WF}/instances`, startRequest("not-a-ref")),
      400,
      /not a folder reference/,
    );
    await expectRefused(
      repo,
      () =>
        postXml(
          u.manager,
          `${WF}/instances`,
          startRequest(COUNCIL).replace("<Key>folder</Key>", "<Key>depth</Key>"),
        ),
      400,
      /does not know "depth"/,
    );
    await expectRefused(
      repo,
      () => postXml(u.manager, `${WF}/instances`, "<StartWorkflowRequest>"),
      400,
      /not well-formed XML/,
    );
  });

  it("terminates (202) an instance that has not ended; a finished one stays as it was", async () => {
    // A deletion awaiting approval has not ended (running ones: integrity-check.test.ts).
    const token = await accepted(
      await sendXml(u.manager, "DELETE", `${E}/information-objects/${DEMO.refs.xmlAsset}`, deletion("old")),
    );
    const id = text((await instanceOfToken(u.manager, token)).Id);
    const finishedId = text((await instanceOfToken(u.manager, tokens.move)).Id);
    await expectRefused(
      repo,
      () => u.curator(`${WF}/instances/terminate?workflowInstanceIds=${id}`, { method: "POST" }),
      403,
      /Only managers and administrators may terminate/,
    );
    await expectRefused(
      repo,
      () => u.manager(`${WF}/instances/terminate?workflowInstanceIds=${id},999999`, { method: "POST" }),
      404,
      /No workflow instance 999999/,
    );
    await expectRefused(
      repo,
      () => u.manager(`${WF}/instances/terminate`, { method: "POST" }),
      400,
      /workflowInstanceIds=1,2/,
    );
    // Stopping is for running instances: one awaiting a decision is refused, and nothing changes.
    await expectRefused(
      repo,
      () => u.manager(`${WF}/instances/stop?workflowInstanceIds=${finishedId},${id}`, { method: "POST" }),
      409,
      /waiting for a manager's decision/,
    );
    const reply = await wfXml(
      u.manager,
      `${WF}/instances/terminate?workflowInstanceIds=${id},${finishedId}`,
      202,
      {
        method: "POST",
      },
    );
    const changes = arr(reply.WorkflowInstanceChange);
    expect(changes.map((x) => [text(x.WorkflowInstanceId), text(x.WorkflowState), text(x.Changed)])).toEqual([
      [id, "Aborted", "true"],
      [finishedId, "Completed", "false"],
    ]);
    expect(text((await instance(u.manager, id)).State)).toBe("Aborted");
    expect(text((await instance(u.manager, finishedId)).State)).toBe("Completed");
    expect((await u.manager(`${E}/information-objects/${DEMO.refs.xmlAsset}`)).status).toBe(200);
    for (const verb of ["stop", "resume"]) {
      await expectRefused(
        repo,
        () => u.curator(`${WF}/instances/${verb}?workflowInstanceIds=${finishedId}`, { method: "POST" }),
        403,
        new RegExp(`Only managers and administrators may ${verb}`),
      );
    }
    // Nothing to stop or resume in an instance that has ended: 202, unchanged.
    for (const verb of ["stop", "resume"]) {
      const r = await wfXml(u.manager, `${WF}/instances/${verb}?workflowInstanceIds=${finishedId}`, 202, {
        method: "POST",
      });
      expect(text(arr(r.WorkflowInstanceChange)[0].Changed)).toBe("false");
    }
  });
});

describe("paging", () => {
  it("keeps TotalCount and Count consistent, so a client paging by Count sees every instance once", async () => {
    for (let i = 0; i < 5; i++) await startCheck(u.manager, SMALL_FOLDER);
    await repo.svc.actions.idle();
    const all = await wfXml(u.manager, `${WF}/instances?max=1000`);
    const total = Number(text(all.TotalCount));
    expect(total).toBe(ids(all).length);
    expect(total).toBeGreaterThanOrEqual(8);
    for (const max of [1, 3, 7, 100]) {
      const walked = await walkInstances(u.manager, "type=DataManagement", max);
      const dm = ids(await wfXml(u.manager, `${WF}/instances?type=DataManagement&max=1000`));
      expect(walked, `max=${max}`).toEqual(dm);
      expect(new Set(walked).size).toBe(walked.length);
      // Oldest first: instances started while a client pages land on later pages.
      expect([...walked].sort((a, b) => a - b)).toEqual(walked);
    }
    const past = await wfXml(u.manager, `${WF}/instances?start=${total}&max=10`);
    expect(text(past.Count)).toBe("0");
    expect(text(past.TotalCount)).toBe(String(total));
  });
});
