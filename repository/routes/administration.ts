import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import type { AppEnv } from "../context.js";
import { requireToken } from "../http/auth-middleware.js";
import { ADMINISTRATORS, MANAGERS, requireRole } from "../http/roles.js";
import { DC_ELEMENTS } from "../search/dublin-core.js";
import {
  type CmisFields,
  cmisFields,
  SETTING,
  type SystemProperty,
  systemProperties,
  systemProperty,
  thumbnailPolicy,
} from "../store/system/read.js";
import {
  deleteSystemProperty,
  putSetting,
  restoreBuiltIns,
  setSystemProperty,
} from "../store/system/write.js";
import {
  booleanField,
  type Ctx,
  changeBy,
  integerField,
  jsonObject,
  ok,
  onlyFields,
} from "./system-common.js";

/**
 * The Administration and Management API's system settings, at `/api/admin` beside the Admin API's other
 * sub-apps (JSON in the `{success, version, value}` envelope):
 * - `/thumbnail-policy` (GET, PUT; managers and administrators): how thumbnails are shown.
 * - `/system-properties[/{name}]` (GET, PUT, DELETE; administrators only): named string properties.
 * - `/notify-updates` (POST; administrators): puts back built-in schemas, documents and transforms.
 * - `/cmis-transform` (GET, PUT; managers and administrators): which metadata fields give an object's Title
 *   and Description in the Content API's object details.
 * Every change records a config event (SYSTEM, or METADATA for the CMIS transform).
 */

const THUMBNAIL_EXAMPLE = '{"enabled": true, "useImageContent": true, "maxWidth": 256, "maxHeight": 256}';
const PROPERTY_EXAMPLE = '{"value": "UTC", "description": "Time zone of dates shown to users"}';
const CMIS_EXAMPLE = '{"titleField": "oai_dc.title", "descriptionField": "oai_dc.description"}';
const PROPERTY_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const MAX_PROPERTY_VALUE = 4000;
const MAX_DIMENSION = 4096;

export function administrationRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  for (const path of [
    "/thumbnail-policy",
    "/system-properties",
    "/system-properties/*",
    "/notify-updates",
    "/cmis-transform",
  ]) {
    app.use(path, requireToken);
  }

  app.get("/thumbnail-policy", requireRole(MANAGERS, "read the thumbnail policy"), (c) => {
    return ok(c, thumbnailPolicy(c.get("svc").db));
  });
  app.put("/thumbnail-policy", requireRole(MANAGERS, "change the thumbnail policy"), async (c) => {
    const body = await jsonObject(c, THUMBNAIL_EXAMPLE);
    onlyFields(body, ["enabled", "useImageContent", "maxWidth", "maxHeight"], THUMBNAIL_EXAMPLE);
    const { db } = c.get("svc");
    const current = thumbnailPolicy(db);
    const next = {
      enabled: booleanField(body, "enabled") ?? current.enabled,
      useImageContent: booleanField(body, "useImageContent") ?? current.useImageContent,
      maxWidth: integerField(body, "maxWidth", 16, MAX_DIMENSION) ?? current.maxWidth,
      maxHeight: integerField(body, "maxHeight", 16, MAX_DIMENSION) ?? current.maxHeight,
    };
    putSetting(db, SETTING.THUMBNAILS, next, "SYSTEM", "Changed the thumbnail policy", changeBy(c));
    return ok(c, thumbnailPolicy(db));
  });

  app.get("/system-properties", requireRole(ADMINISTRATORS, "read system properties"), (c) => {
    return ok(c, { properties: systemProperties(c.get("svc").db) });
  });
  app.get("/system-properties/:name", requireRole(ADMINISTRATORS, "read system properties"), (c) => {
    return ok(c, knownProperty(c));
  });
  app.put("/system-properties/:name", requireRole(ADMINISTRATORS, "change system properties"), async (c) => {
    const name = propertyName(c);
    const body = await jsonObject(c, PROPERTY_EXAMPLE);
    onlyFields(body, ["value", "description"], PROPERTY_EXAMPLE);
    const value = textField(body, "value", true) as string;
    const description = textField(body, "description", false);
    const { db } = c.get("svc");
    const created = setSystemProperty(db, name, value, description, changeBy(c));
    return ok(c, systemProperty(db, name) as SystemProperty, created ? 201 : 200);
  });
  app.delete("/system-properties/:name", requireRole(ADMINISTRATORS, "delete system properties"), (c) => {
    const p = knownProperty(c);
    if (p.builtIn) {
      throw new HTTPException(409, {
        message: `${p.name} is a built-in property: it can be changed (PUT with a new value) but not deleted`,
      });
    }
    deleteSystemProperty(c.get("svc").db, p.name, changeBy(c));
    return c.body(null, 204);
  });

  app.post("/notify-updates", requireRole(ADMINISTRATORS, "update the built-in documents"), (c) => {
    return ok(c, restoreBuiltIns(c.get("svc").db, changeBy(c)));
  });

  app.get("/cmis-transform", requireRole(MANAGERS, "read the CMIS transform settings"), (c) => {
    return ok(c, cmisFields(c.get("svc").db));
  });
  app.put("/cmis-transform", requireRole(MANAGERS, "change the CMIS transform settings"), async (c) => {
    const body = await jsonObject(c, CMIS_EXAMPLE);
    onlyFields(body, ["titleField", "descriptionField"], CMIS_EXAMPLE);
    const { db } = c.get("svc");
    const current = cmisFields(db);
    const next: CmisFields = {
      titleField: metadataField(body, "titleField") ?? current.titleField,
      descriptionField: metadataField(body, "descriptionField") ?? current.descriptionField,
    };
    putSetting(
      db,
      SETTING.CMIS,
      { ...next },
      "METADATA",
      `Set the CMIS Title field to ${next.titleField} and Description field to ${next.descriptionField}`,
      changeBy(c),
    );
    return ok(c, cmisFields(db));
  });
  return app;
}

function propertyName(c: Ctx): string {
  const name = c.req.param("name") ?? "";
  if (!PROPERTY_NAME.test(name)) {
    throw new HTTPException(400, {
      message: `"${name.slice(0, 80)}" is not a property name: use letters, digits, dots, dashes and underscores (at most 128), e.g. system.timezone`,
    });
  }
  return name;
}

function knownProperty(c: Ctx): SystemProperty {
  const name = propertyName(c);
  const p = systemProperty(c.get("svc").db, name);
  if (!p) {
    throw new HTTPException(404, {
      message: `No system property ${name}; GET /api/admin/system-properties lists them (PUT creates one)`,
    });
  }
  return p;
}

function textField(body: Record<string, unknown>, name: string, isRequired: boolean): string | undefined {
  const v = body[name];
  if (v === undefined && !isRequired) return undefined;
  if (typeof v !== "string") {
    throw new HTTPException(400, { message: `${name} is required as a string; send ${PROPERTY_EXAMPLE}` });
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: these characters are what it refuses.
  if (v.length > MAX_PROPERTY_VALUE || /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/.test(v)) {
    throw new HTTPException(400, {
      message: `${name} must be at most ${MAX_PROPERTY_VALUE} characters without control characters`,
    });
  }
  return v;
}

const CLARK = /^\{([^{}\s]{1,500})\}([A-Za-z_][\w.-]{0,127})$/;
const DC_SET = new Set<string>(DC_ELEMENTS);

/** `xip.title`, `xip.description`, `oai_dc.<element>` or `{namespace}localName`. */
function metadataField(body: Record<string, unknown>, name: string): string | undefined {
  const v = body[name];
  if (v === undefined) return undefined;
  const text = typeof v === "string" ? v.trim() : "";
  const dc = /^oai_dc\.(\w+)$/.exec(text);
  if (
    text === "xip.title" ||
    text === "xip.description" ||
    (dc && DC_SET.has(dc[1] as string)) ||
    CLARK.test(text)
  ) {
    return text;
  }
  throw new HTTPException(400, {
    message: `${name} must be xip.title, xip.description, a Dublin Core element such as oai_dc.title, or an element of another schema as {namespace}localName (got ${JSON.stringify(v)?.slice(0, 80)})`,
  });
}
