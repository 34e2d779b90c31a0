import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { type AppEnv, nowIso } from "../context.js";
import { requireToken } from "../http/auth-middleware.js";
import { requestText } from "../http/request-text.js";
import { MANAGERS, requireRole } from "../http/roles.js";
import { childText, parseXmlBody, type XmlNode } from "../http/xml-body.js";
import { WORKFLOW_TYPES } from "../operations/states.js";
import {
  type ContextRow,
  contextByName,
  contexts,
  definitions,
  findContext,
  findDefinition,
} from "../store/workflows/read.js";
import { insertContext, insertDefinition } from "../store/workflows/write.js";
import {
  contextDocument,
  contextsDocument,
  definitionDocument,
  definitionsDocument,
  WF_NS,
} from "../xml/workflow-docs.js";
import { type OpsContext, oneOf, positiveId, queryOnce } from "./operations-common.js";
import {
  badRequest,
  readParameters,
  typeParam,
  WORKFLOW_API_PATH,
  wfBody,
  xmlReply,
} from "./workflow-common.js";
import { registerInstanceRoutes } from "./workflow-instances.js";
import { starterOf } from "./workflow-start.js";
import { registerHumanTaskRoutes } from "./workflow-tasks.js";

/**
 * The Workflow API (`/sdb/rest/workflow`, XML in the namespace http://workflow.preservica.com).
 * Workflow instances are the service's long-running actions: an instance's Id is the action's `seq`,
 * its ArchivalProcessId the action's progress token, its state the action's status. Definitions and
 * contexts are stored (one built-in pair per kind of action, plus uploaded ones). Reading needs a
 * token (non-administrators see the instances they started); starting, terminating, stopping,
 * resuming and uploading need the manager or administrator role.
 */
export function workflowRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use(requireToken);
  registerDefinitionRoutes(app);
  registerContextRoutes(app);
  registerInstanceRoutes(app);
  registerHumanTaskRoutes(app);
  return app;
}

// ---------------------------------------------------------------------------------------------------
// Definitions

const DEFINITION_EXAMPLE = `<WorkflowDefinition xmlns="${WF_NS}" id="org.example.workflow.review" name="Review" type="DataManagement"><Description>What it does</Description>…</WorkflowDefinition>`;

/** An attribute or a child element's text, whichever the document uses. */
function field(doc: XmlNode, attr: string, element: string): string | undefined {
  const a = doc.attrs[attr]?.trim();
  if (a) return a;
  const t = childText(doc, element);
  return t ? t : undefined;
}

function registerDefinitionRoutes(app: Hono<AppEnv>): void {
  app.get("/definitions", (c) =>
    xmlReply(c, definitionsDocument(definitions(c.get("svc").db, typeParam(c)))),
  );
  app.get("/definitions/:id", (c) => xmlReply(c, definitionDocument(knownDefinition(c, c.req.param("id")))));
  app.get("/definitions/:id/document", (c) => {
    const d = knownDefinition(c, c.req.param("id"));
    if (d.document === null) {
      throw new HTTPException(404, {
        message: `Definition ${d.text_id} is built into this service and has no uploaded document; GET ${WORKFLOW_API_PATH}/definitions/${d.id} describes it`,
      });
    }
    return xmlReply(c, d.document);
  });
  app.post("/definitions", requireRole(MANAGERS, "upload workflow definitions"), async (c) => {
    const text = await requestText(c.req);
    const doc = parseXmlBody(text, DEFINITION_EXAMPLE);
    const textId = field(doc, "id", "TextId") ?? field(doc, "textId", "Id");
    const name = field(doc, "name", "Name");
    const rawType = field(doc, "type", "Type");
    if (!textId || !name || !rawType) {
      const missing = [!textId && "an id", !name && "a name", !rawType && "a type"]
        .filter(Boolean)
        .join(", ");
      throw badRequest(
        `The definition needs ${missing} (attributes id, name, type on the root element, or child elements TextId, Name, Type); send ${DEFINITION_EXAMPLE}`,
      );
    }
    if (!/^[A-Za-z][\w.-]{0,199}$/.test(textId)) {
      throw badRequest(
        `Definition id "${textId.slice(0, 80)}" must start with a letter and hold only letters, digits, '.', '_' and '-' (at most 200), e.g. org.example.workflow.review`,
      );
    }
    if (name.length > 200) throw badRequest("The definition's name is longer than 200 characters");
    const type = oneOf(WORKFLOW_TYPES, rawType, "type");
    const { db } = c.get("svc");
    if (findDefinition(db, textId)) {
      throw new HTTPException(409, {
        message: `A workflow definition with id ${textId} already exists; upload under another id`,
      });
    }
    const description = childText(doc, "Description") ?? doc.attrs.description ?? "";
    const id = insertDefinition(
      db,
      {
        textId,
        name,
        description,
        type,
        document: text.replace(/^\uFEFF/, ""),
        createdBy: c.get("caller").user.username,
      },
      nowIso(c),
    );
    c.header("Location", `${new URL(c.req.url).origin}${WORKFLOW_API_PATH}/definitions/${id}`);
    return xmlReply(c, definitionDocument(knownDefinition(c, String(id))), 201);
  });
}

function knownDefinition(c: OpsContext, raw: string | undefined) {
  const d = raw ? findDefinition(c.get("svc").db, raw) : undefined;
  if (!d) {
    throw new HTTPException(404, {
      message: `No workflow definition "${(raw ?? "").slice(0, 80)}"; GET ${WORKFLOW_API_PATH}/definitions lists them (by numeric Id or TextId)`,
    });
  }
  return d;
}

// ---------------------------------------------------------------------------------------------------
// Contexts

const CONTEXT_EXAMPLE = `<WorkflowContext xmlns="${WF_NS}"><Name>Integrity Check of the council records</Name><WorkflowDefinitionId>com.preservica.core.workflow.integrity.check</WorkflowDefinitionId><Description>…</Description><Parameter><Key>folder</Key><Value>{folder ref}</Value></Parameter></WorkflowContext>`;

function registerContextRoutes(app: Hono<AppEnv>): void {
  app.get("/contexts", (c) => {
    const { db } = c.get("svc");
    const defRaw = queryOnce(c, "workflowDefinitionId");
    let definitionId: number | null = null;
    if (defRaw !== undefined) {
      const d = findDefinition(db, defRaw);
      // An unknown definition has no contexts: an empty list, as for a type that has none.
      if (!d) return xmlReply(c, contextsDocument([]));
      definitionId = d.id;
    }
    return xmlReply(c, contextsDocument(contexts(db, { type: typeParam(c), definitionId })));
  });
  app.get("/contexts/:id", (c) => xmlReply(c, contextDocument(knownContext(c, c.req.param("id")))));
  app.post("/contexts", requireRole(MANAGERS, "create workflow contexts"), async (c) => {
    const doc = await wfBody(c, "WorkflowContext", CONTEXT_EXAMPLE);
    const name = childText(doc, "Name");
    const defRaw = childText(doc, "WorkflowDefinitionId");
    if (!name || !defRaw) {
      throw badRequest(`A context needs a Name and a WorkflowDefinitionId; send ${CONTEXT_EXAMPLE}`);
    }
    if (name.length > 200) throw badRequest("The context's name is longer than 200 characters");
    const { db } = c.get("svc");
    const d = findDefinition(db, defRaw);
    if (!d) {
      throw new HTTPException(404, {
        message: `No workflow definition "${defRaw.slice(0, 80)}"; GET ${WORKFLOW_API_PATH}/definitions lists them`,
      });
    }
    if (contextByName(db, name)) {
      throw new HTTPException(409, {
        message: `A workflow context named "${name}" already exists; choose another name`,
      });
    }
    const parameters = Object.fromEntries(readParameters(doc, CONTEXT_EXAMPLE).map((p) => [p.key, p.value]));
    const starter = starterOf(d.action_kind);
    if (starter && Object.keys(parameters).length > 0) {
      // Defaults are checked as a start would check them, so a context cannot hold ones that never work.
      starter(c, new Map(Object.entries(parameters)));
    }
    const id = insertContext(
      db,
      {
        definitionId: d.id,
        name,
        description: childText(doc, "Description") ?? "",
        parameters,
        createdBy: c.get("caller").user.username,
      },
      nowIso(c),
    );
    c.header("Location", `${new URL(c.req.url).origin}${WORKFLOW_API_PATH}/contexts/${id}`);
    return xmlReply(c, contextDocument(knownContext(c, String(id))), 201);
  });
}

function knownContext(c: OpsContext, raw: string | undefined): ContextRow {
  const ctx = findContext(c.get("svc").db, positiveId(raw, "Workflow context id"));
  if (!ctx) {
    throw new HTTPException(404, {
      message: `No workflow context ${raw}; GET ${WORKFLOW_API_PATH}/contexts lists them`,
    });
  }
  return ctx;
}
