import { type Context, Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { type AppEnv, nowIso } from "../context.js";
import { requireToken } from "../http/auth-middleware.js";
import { requestText } from "../http/request-text.js";
import { checkRole, MANAGERS, requireRole } from "../http/roles.js";
import { csvTemplate } from "../metadata-groups/csv.js";
import {
  elementNameOf,
  type GroupField,
  type MetadataGroup,
  parseJsonObject,
  readFormInput,
  readGroupInput,
  schemaUriFor,
} from "../metadata-groups/definition.js";
import {
  allForms,
  allGroups,
  clashingGroup,
  formWithTitle,
  getForm,
  getGroup,
  groupBySchemaUri,
} from "../store/metadata-groups/read.js";
import {
  deleteForm,
  deleteGroup,
  insertForm,
  insertGroup,
  replaceForm,
  replaceGroup,
} from "../store/metadata-groups/write.js";

/**
 * Metadata groups and forms (JSON, `/api/metadata`), and CSV templates built from groups. Reads need a
 * token; writes the manager or administrator role (403 otherwise). Status codes are the real service's,
 * which clients check exactly: POST → 201, PUT of a group → 201 (sic), PUT of a form → 200, DELETE → 204.
 * Creation is served with and without a trailing slash (clients POST to `groups/` and `forms/`).
 */
export function metadataRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use(requireToken);
  registerGroupRoutes(app);
  registerFormRoutes(app);
  registerTemplateRoutes(app);
  return app;
}

type Ctx = Context<AppEnv>;

/** An id from the path or query as a message shows it: at most 100 characters. */
function clip(id: string): string {
  return id.length > 100 ? `${id.slice(0, 100)}…` : id;
}

function fieldJson(f: GroupField): Record<string, unknown> {
  return {
    id: f.id,
    name: f.name,
    type: f.type,
    minOccurs: f.minOccurs,
    maxOccurs: f.maxOccurs,
    visible: f.visible,
    editable: f.editable,
    ...(f.values ? { values: f.values } : {}),
    defaultValue: f.defaultValue,
    indexed: f.indexed,
    ...(f.maxLength !== undefined ? { maxLength: f.maxLength } : {}),
  };
}

function groupJson(g: MetadataGroup): Record<string, unknown> {
  return {
    id: g.id,
    name: g.name,
    description: g.description,
    schemaUri: g.schemaUri,
    fields: g.fields.map(fieldJson),
  };
}

function knownGroup(c: Ctx, id: string): MetadataGroup {
  const g = getGroup(c.get("svc").db, id);
  if (!g) {
    throw new HTTPException(404, {
      message: `No metadata group with id "${clip(id)}"; GET /api/metadata/groups lists the groups and their ids`,
    });
  }
  return g;
}

/** 409 when another group has this name, or (for a new group) the schema URI the name gives. */
function refuseClash(c: Ctx, name: string, schemaUri: string | null, exceptId: string | null): void {
  const other = clashingGroup(c.get("svc").db, name, schemaUri, exceptId);
  if (!other) return;
  const why =
    other.name.toLowerCase() === name.toLowerCase()
      ? `A group named "${other.name}" already exists`
      : `Group "${other.name}" already has the schema URI ${schemaUri}, which this name would also give`;
  throw new HTTPException(409, {
    message: `${why} (id ${other.id}); choose another name, or change that group with PUT /api/metadata/groups/${other.id}`,
  });
}

function registerGroupRoutes(app: Hono<AppEnv>): void {
  const list = (c: Ctx) => {
    // The listing carries no fields, as the real service's does; GET groups/{id} has them.
    const groups = allGroups(c.get("svc").db).map((g) => ({
      id: g.id,
      name: g.name,
      description: g.description,
      schemaUri: g.schemaUri,
    }));
    return c.json({ groups });
  };
  const create = async (c: Ctx) => {
    checkRole(c, MANAGERS, "create metadata groups");
    const input = readGroupInput(parseJsonObject(await requestText(c.req), "group"));
    const schemaUri = schemaUriFor(input.name);
    const { db } = c.get("svc");
    const id = db.transaction(() => {
      refuseClash(c, input.name, schemaUri, null);
      return insertGroup(db, input, schemaUri, nowIso(c));
    })();
    return c.json(groupJson(knownGroup(c, id)), 201);
  };
  app.get("/groups", list);
  app.get("/groups/", list);
  app.post("/groups", create);
  app.post("/groups/", create);

  app.get("/groups/:id", (c) => c.json(groupJson(knownGroup(c, c.req.param("id")))));

  app.put("/groups/:id", requireRole(MANAGERS, "change metadata groups"), async (c) => {
    const existing = knownGroup(c, c.req.param("id"));
    const input = readGroupInput(parseJsonObject(await requestText(c.req), "group"));
    const { db } = c.get("svc");
    db.transaction(() => {
      // The schema URI stays (documents already use it); only the name must not clash.
      refuseClash(c, input.name, null, existing.id);
      replaceGroup(db, existing.id, input, nowIso(c));
    })();
    // 201, not 200: what the real service answers and clients check for.
    return c.json(groupJson(knownGroup(c, existing.id)), 201);
  });

  app.delete("/groups/:id", requireRole(MANAGERS, "delete metadata groups"), (c) => {
    const g = knownGroup(c, c.req.param("id"));
    deleteGroup(c.get("svc").db, g.id);
    return c.body(null, 204);
  });
}

function knownForm(c: Ctx, id: string) {
  const f = getForm(c.get("svc").db, id);
  if (!f) {
    throw new HTTPException(404, {
      message: `No metadata form with id "${clip(id)}"; GET /api/metadata/forms lists the forms and their ids`,
    });
  }
  return f;
}

function refuseTitleClash(c: Ctx, title: string, exceptId: string | null): void {
  const other = formWithTitle(c.get("svc").db, title, exceptId);
  if (other) {
    throw new HTTPException(409, {
      message: `A form titled "${title}" already exists (id ${other}); choose another title, or change that form with PUT /api/metadata/forms/${other}`,
    });
  }
}

function registerFormRoutes(app: Hono<AppEnv>): void {
  const list = (c: Ctx) => {
    const schemaUri = c.req.query("schemaUri")?.trim() || null;
    const metadataForms = allForms(c.get("svc").db, schemaUri).map((f) => ({
      id: f.id,
      title: f.title,
      ...(f.schemaUri ? { schemaUri: f.schemaUri } : {}),
    }));
    return c.json({ metadataForms });
  };
  const create = async (c: Ctx) => {
    checkRole(c, MANAGERS, "create metadata forms");
    const input = readFormInput(parseJsonObject(await requestText(c.req), "form"));
    const { db } = c.get("svc");
    const id = db.transaction(() => {
      refuseTitleClash(c, input.title, null);
      return insertForm(db, input, nowIso(c));
    })();
    return c.json(knownForm(c, id).document, 201);
  };
  app.get("/forms", list);
  app.get("/forms/", list);
  app.post("/forms", create);
  app.post("/forms/", create);

  app.get("/forms/:id", (c) => c.json(knownForm(c, c.req.param("id")).document));

  app.put("/forms/:id", requireRole(MANAGERS, "change metadata forms"), async (c) => {
    const existing = knownForm(c, c.req.param("id"));
    const input = readFormInput(parseJsonObject(await requestText(c.req), "form"));
    const { db } = c.get("svc");
    db.transaction(() => {
      refuseTitleClash(c, input.title, existing.id);
      replaceForm(db, existing.id, input, nowIso(c));
    })();
    return c.json(knownForm(c, existing.id).document, 200);
  });

  app.delete("/forms/:id", requireRole(MANAGERS, "delete metadata forms"), (c) => {
    const f = knownForm(c, c.req.param("id"));
    deleteForm(c.get("svc").db, f.id);
    return c.body(null, 204);
  });
}

/**
 * The groups `ids` stands for: each id is a group's, or a form's (clients pass form ids), whose schema
 * URI must then be a group's. Repeats are dropped; the order is kept.
 */
function templateGroups(c: Ctx): MetadataGroup[] {
  const ids = (c.req.queries("ids") ?? [])
    .flatMap((v) => v.split(","))
    .map((v) => v.trim())
    .filter((v) => v !== "");
  if (ids.length === 0) {
    throw new HTTPException(400, {
      message:
        "Parameter ids is required: the ids of metadata groups (or of forms of a group), comma-separated; GET /api/metadata/groups lists them",
    });
  }
  const { db } = c.get("svc");
  const groups = new Map<string, MetadataGroup>();
  for (const id of ids) {
    let g = getGroup(db, id);
    if (!g) {
      const form = getForm(db, id);
      if (!form) {
        throw new HTTPException(404, {
          message: `No metadata group or form with id "${clip(id)}"; GET /api/metadata/groups and /api/metadata/forms list them`,
        });
      }
      g = form.schemaUri ? groupBySchemaUri(db, form.schemaUri) : undefined;
      if (!g) {
        throw new HTTPException(400, {
          message: `Form "${form.title}" (${id}) is not the form of a metadata group (its schemaUri is ${form.schemaUri ?? "not set"}); CSV templates are made from groups, so pass a group's id`,
        });
      }
    }
    groups.set(g.id, g);
  }
  return [...groups.values()];
}

function registerTemplateRoutes(app: Hono<AppEnv>): void {
  app.get("/csv-templates/download", (c) => {
    const groups = templateGroups(c);
    const [only] = groups;
    const filename =
      groups.length === 1 && only ? `${elementNameOf(only.schemaUri)}.csv` : "metadata-template.csv";
    return c.body(csvTemplate(groups), 200, {
      "Content-Type": "text/csv;charset=UTF-8",
      "Content-Disposition": `attachment; filename="${filename}"`,
    });
  });
}
