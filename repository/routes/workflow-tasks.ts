import type { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { type AppEnv, nowIso } from "../context.js";
import { childText } from "../http/xml-body.js";
import { type DeletionParams, deletionAction, deletionScope } from "../jobs/deletion.js";
import { getAction } from "../store/actions/read.js";
import { Role } from "../store/auth.js";
import { anyEntity } from "../store/recycle-bin/read.js";
import { findInstance, type InstanceRow, instancesPage } from "../store/workflows/read.js";
import {
  type HumanTaskView,
  humanTaskDocument,
  humanTasksDocument,
  instanceDocument,
  WF_NS,
} from "../xml/workflow-docs.js";
import { decideDeletion } from "./deletion-decision.js";
import { mayReadTag, type OpsContext, ownerFilter, pagingOf } from "./operations-common.js";
import { instanceView, knownInstance, WORKFLOW_API_PATH, wfBody, xmlReply } from "./workflow-common.js";

/**
 * Human tasks: a step of a workflow that waits for a person. Here that is a deletion awaiting a
 * manager's approval; its task id is the instance id. Submitting a result does exactly what
 * `PUT /api/entity/actions/deletions/{id}` does (same code: routes/deletion-decision.ts): approve
 * runs the deletion, reject cancels it. Managers see every pending task; other users the ones they
 * asked for. Only managers (the MANAGER role, as for the Entity API's approval) submit results.
 */
export function registerHumanTaskRoutes(app: Hono<AppEnv>): void {
  app.get("/humantasks", (c) => {
    const { start, max } = pagingOf(c, 100);
    const page = instancesPage(
      c.get("svc").db,
      { kind: deletionAction.kind, statuses: ["PENDING"], owner: ownerFilter(c) },
      start,
      max,
    );
    return xmlReply(
      c,
      humanTasksDocument(
        page.items.map((r) => taskView(c, r)),
        page.total,
      ),
    );
  });
  app.get("/humantasks/:id{[0-9]+}", (c) => xmlReply(c, humanTaskDocument(taskView(c, pendingTask(c)))));
  app.post("/humantasks/:id{[0-9]+}/result", async (c) => {
    const caller = c.get("caller");
    if (!caller.user.roles.includes(Role.MANAGER)) {
      throw new HTTPException(403, {
        message: `Only managers decide deletions; ${caller.user.username} does not have the ${Role.MANAGER} role. Ask a manager to submit this result with their own token`,
      });
    }
    const r = pendingTask(c);
    const doc = await wfBody(c, "HumanTaskResult", RESULT_EXAMPLE);
    const outcome = childText(doc, "Outcome")?.toLowerCase();
    if (outcome !== "approve" && outcome !== "reject") {
      throw new HTTPException(400, {
        message: `Outcome must be approve or reject, got "${(childText(doc, "Outcome") ?? "").slice(0, 40)}"; send ${RESULT_EXAMPLE}`,
      });
    }
    const comment = childText(doc, "Comment") ?? "";
    const { db } = c.get("svc");
    decideDeletion(
      c.get("svc"),
      getAction(db, r.id) ?? r,
      { approved: outcome === "approve", comment, by: caller.user.username },
      nowIso(c),
    );
    const after = findInstance(db, r.seq) as InstanceRow;
    return xmlReply(c, instanceDocument(instanceView(c, after)), 202);
  });
}

const RESULT_EXAMPLE = `<HumanTaskResult xmlns="${WF_NS}"><Outcome>approve</Outcome><Comment>Checked with the depositor</Comment></HumanTaskResult>`;

/** The task `id`: a visible deletion instance still awaiting its decision (404 / 403 / 409 otherwise). */
function pendingTask(c: OpsContext): InstanceRow {
  const r = knownInstance(c, c.req.param("id"));
  if (r.kind !== deletionAction.kind) {
    throw new HTTPException(404, {
      message: `Workflow instance ${r.seq} (${r.context_name}) has no human task; GET ${WORKFLOW_API_PATH}/humantasks lists the tasks waiting for a decision`,
    });
  }
  if (r.status !== "PENDING") {
    throw new HTTPException(409, {
      message: `The deletion of workflow instance ${r.seq} is no longer awaiting a decision (it is ${r.status}); GET ${WORKFLOW_API_PATH}/humantasks lists the tasks waiting for one`,
    });
  }
  return r;
}

function taskView(c: OpsContext, r: InstanceRow): HumanTaskView {
  const ref = r.entity_ref as string;
  const { db } = c.get("svc");
  const e = anyEntity(db, ref);
  const params = JSON.parse(r.params) as DeletionParams;
  return {
    row: r,
    entity: { ref, type: r.entity_type, ...(e && mayReadTag(c, e.security_tag) ? { title: e.title } : {}) },
    comment: params.comment ?? "",
    scope: e && e.deleted === 0 ? deletionScope(db, ref).length : r.total,
  };
}
