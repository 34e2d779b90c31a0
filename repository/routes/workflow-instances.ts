import type { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { type AppEnv, nowIso } from "../context.js";
import { checkRole, MANAGERS, requireRole } from "../http/roles.js";
import type { XmlNode } from "../http/xml-body.js";
import { childText } from "../http/xml-body.js";
import { statusesOfState, WORKFLOW_STATES, workflowState } from "../operations/states.js";
import { getAction } from "../store/actions/read.js";
import { createAction, setActionStatus } from "../store/actions/write.js";
import {
  type ContextRow,
  contextByName,
  findContext,
  findInstance,
  type InstanceRow,
  instancesPage,
} from "../store/workflows/read.js";
import { recordStart } from "../store/workflows/write.js";
import { instanceChangesDocument, instanceDocument, instancesDocument, WF_NS } from "../xml/workflow-docs.js";
import { type OpsContext, oneOf, ownerFilter, pagingOf, positiveId, queryOnce } from "./operations-common.js";
import {
  badRequest,
  dateParam,
  instanceView,
  knownInstance,
  readParameters,
  truthy,
  typeParam,
  WORKFLOW_API_PATH,
  wfBody,
  xmlReply,
} from "./workflow-common.js";
import { starterOf } from "./workflow-start.js";

/**
 * Workflow instances: every long-running action of the service, listed and shown through its context;
 * started here (the Integrity Check), terminated, stopped and resumed.
 */

const START_EXAMPLE = `<StartWorkflowRequest xmlns="${WF_NS}"><WorkflowContextId>11</WorkflowContextId><WorkflowContextName>Integrity Check</WorkflowContextName><Parameter><Key>folder</Key><Value>{folder ref}</Value></Parameter><CorrelationId>{your id}</CorrelationId></StartWorkflowRequest>`;

export function registerInstanceRoutes(app: Hono<AppEnv>): void {
  app.get("/instances", (c) => {
    const { db } = c.get("svc");
    const stateRaw = queryOnce(c, "state");
    const state = stateRaw === undefined ? null : oneOf(WORKFLOW_STATES, stateRaw, "state");
    const contextRaw = queryOnce(c, "contextId");
    const { start, max } = pagingOf(c, 100);
    const page = instancesPage(
      db,
      {
        type: typeParam(c),
        statuses: state ? statusesOfState(state) : null,
        contextId: contextRaw === undefined ? null : positiveId(contextRaw, "Parameter contextId"),
        creator: queryOnce(c, "creator") ?? null,
        from: dateParam(c, "from"),
        to: dateParam(c, "to"),
        owner: ownerFilter(c),
      },
      start,
      max,
    );
    return xmlReply(
      c,
      instancesDocument(
        page.items.map((r) => instanceView(c, r)),
        page.total,
        start,
      ),
    );
  });

  app.get("/instances/:id", (c) => {
    const r = knownInstance(c, c.req.param("id"));
    const parameters =
      truthy(c, "includeParameters") ||
      truthy(c, "includeInputParameters") ||
      truthy(c, "includeOutputParameters");
    return xmlReply(
      c,
      instanceDocument(instanceView(c, r, { errors: truthy(c, "includeErrors"), parameters })),
    );
  });

  app.post("/instances", requireRole(MANAGERS, "start workflows"), async (c) => {
    const doc = await wfBody(c, "StartWorkflowRequest", START_EXAMPLE);
    const ctx = startContext(c, doc);
    const starter = starterOf(ctx.definition_kind);
    if (!starter) {
      const how =
        ctx.start_hint ??
        "it was uploaded as a definition, and this service has no engine to run uploaded definitions";
      throw new HTTPException(422, {
        message: `Workflow context "${ctx.name}" (${ctx.id}) cannot be started here: ${how}. POST ${WORKFLOW_API_PATH}/instances starts the Integrity Check`,
      });
    }
    const given = readParameters(doc, START_EXAMPLE);
    const merged = new Map(Object.entries(JSON.parse(ctx.parameters) as Record<string, string>));
    for (const p of given) merged.set(p.key, p.value);
    const plan = starter(c, merged);
    const correlationRaw = childText(doc, "CorrelationId");
    if (correlationRaw && correlationRaw.length > 200)
      throw badRequest("CorrelationId is longer than 200 characters");
    const { db, actions } = c.get("svc");
    const now = nowIso(c);
    const action = db.transaction(() => {
      const a = createAction(
        db,
        {
          kind: ctx.definition_kind as string,
          username: c.get("caller").user.username,
          entityRef: plan.entityRef,
          entityType: plan.entityType,
          params: plan.params,
        },
        now,
      );
      recordStart(
        db,
        a.id,
        ctx.id,
        correlationRaw || null,
        [...merged].map(([key, value]) => ({ key, value })),
      );
      return a;
    })();
    actions.submit(action.id);
    const r = findInstance(db, action.seq) as InstanceRow;
    c.header("Location", `${new URL(c.req.url).origin}${WORKFLOW_API_PATH}/instances/${r.seq}`);
    c.header("Preservica-Progress-Token", r.id);
    return xmlReply(c, instanceDocument(instanceView(c, r)), 201);
  });

  app.post("/instances/terminate", (c) =>
    changeInstances(c, "terminate", "TerminateResponse", {
      apply: (r) => {
        const by = c.get("caller").user.username;
        const ended = c
          .get("svc")
          .actions.cancel(r.id, `Terminated by ${by} through the Workflow API`, "ABORTED");
        return ended
          ? { changed: true, note: "Terminated; what it had already done stays done" }
          : { changed: false, note: `Already ended (${workflowState(r.status)}); nothing to terminate` };
      },
    }),
  );

  app.post("/instances/stop", (c) =>
    changeInstances(c, "stop", "StopResponse", {
      check: (r) => {
        if (r.status === "PENDING") {
          throw new HTTPException(409, {
            message: `Workflow instance ${r.seq} is waiting for a manager's decision (a human task), not running: decide it (POST ${WORKFLOW_API_PATH}/humantasks/${r.seq}/result) or terminate it; nothing was stopped`,
          });
        }
      },
      apply: (r) => {
        if (r.status !== "ACTIVE") {
          return { changed: false, note: `Not running (${workflowState(r.status)}); nothing to stop` };
        }
        const by = c.get("caller").user.username;
        setActionStatus(
          c.get("svc").db,
          r.id,
          "SUSPENDED",
          nowIso(c),
          `Stopped by ${by}; POST ${WORKFLOW_API_PATH}/instances/resume?workflowInstanceIds=${r.seq} carries on from where it stopped`,
        );
        return {
          changed: true,
          note: "Stopped at the end of its current batch; resume carries on from there",
        };
      },
    }),
  );

  app.post("/instances/resume", (c) =>
    changeInstances(c, "resume", "ResumeResponse", {
      check: (r) => {
        if (r.status === "SUSPENDED" && c.get("svc").actions.isBusy(r.id)) {
          throw new HTTPException(409, {
            message: `Workflow instance ${r.seq} is still finishing the batch it was in when stopped (or still waiting in the queue); nothing was resumed: ask again in a moment`,
          });
        }
      },
      apply: (r) => {
        const { db, actions } = c.get("svc");
        if (r.status !== "SUSPENDED") {
          return { changed: false, note: `Not stopped (${workflowState(r.status)}); nothing to resume` };
        }
        setActionStatus(db, r.id, "ACTIVE", nowIso(c), `Resumed by ${c.get("caller").user.username}`);
        actions.submit(r.id);
        return { changed: true, note: "Resumed from where it stopped" };
      },
    }),
  );
}

/** The context a start request names, by WorkflowContextId and/or WorkflowContextName (which must agree). */
function startContext(c: OpsContext, doc: XmlNode): ContextRow {
  const { db } = c.get("svc");
  const idRaw = childText(doc, "WorkflowContextId");
  const name = childText(doc, "WorkflowContextName");
  if (!idRaw && !name) {
    throw badRequest(
      `Name the context to start with WorkflowContextId (and WorkflowContextName); send ${START_EXAMPLE}`,
    );
  }
  const ctx = idRaw
    ? findContext(db, positiveId(idRaw, "WorkflowContextId"))
    : contextByName(db, name as string);
  if (!ctx) {
    throw new HTTPException(404, {
      message: `No workflow context ${idRaw ? `with id ${idRaw}` : `named "${name}"`}; GET ${WORKFLOW_API_PATH}/contexts lists them`,
    });
  }
  if (idRaw && name && name !== ctx.name) {
    throw badRequest(
      `WorkflowContextId ${ctx.id} is the context "${ctx.name}", not "${name.slice(0, 80)}"; send the Id and Name of one context (GET ${WORKFLOW_API_PATH}/contexts)`,
    );
  }
  return ctx;
}

/**
 * Terminate / stop / resume of `workflowInstanceIds` (comma-separated, or repeated). Every id is
 * checked first (400 malformed, 404 unknown, 403 not visible, 409 cannot take the change), so a bad
 * list changes nothing.
 */
function changeInstances(
  c: OpsContext,
  verb: string,
  root: string,
  how: {
    /** Refuses the whole request (nothing changed yet) when one instance cannot take the change. */
    check?: (r: InstanceRow) => void;
    apply: (r: InstanceRow) => { changed: boolean; note: string };
  },
): Response {
  checkRole(c, MANAGERS, `${verb} workflow instances`);
  const raw = (c.req.queries("workflowInstanceIds") ?? []).flatMap((v) => v.split(",")).map((s) => s.trim());
  const listed = raw.filter((s) => s !== "");
  if (listed.length === 0) {
    throw badRequest(
      `Name the instances to ${verb}: ${WORKFLOW_API_PATH}/instances/${verb}?workflowInstanceIds=1,2`,
    );
  }
  // "1,,2" or "1,": a list built wrong, whose intent is not certain; nothing is changed on a guess.
  if (listed.length < raw.length) {
    throw badRequest(
      `workflowInstanceIds holds an empty id (two commas in a row, or a comma at an end); separate the ids by single commas: ?workflowInstanceIds=1,2`,
    );
  }
  if (listed.length > 1000)
    throw badRequest(`At most 1000 instances at once; ${verb} them in several requests`);
  const rows = [...new Set(listed.map((s) => positiveId(s, "Each workflowInstanceId")))].map((id) =>
    knownInstance(c, String(id)),
  );
  for (const r of rows) how.check?.(r);
  const { db } = c.get("svc");
  const results = rows.map((r) => {
    const outcome = how.apply(r);
    return { ...outcome, row: { ...r, status: getAction(db, r.id)?.status ?? r.status } };
  });
  return xmlReply(c, instanceChangesDocument(root, results), 202);
}
