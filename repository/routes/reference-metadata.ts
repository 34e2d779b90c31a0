import { randomUUID } from "node:crypto";
import { CsvError, parse } from "csv-parse/sync";
import { type Context, Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { type AppEnv, nowIso } from "../context.js";
import { requireToken } from "../http/auth-middleware.js";
import { flag, isUuid, jsonObjectOf, MAX_JSON_DEPTH } from "../http/params.js";
import { checkRole, MANAGERS } from "../http/roles.js";
import { Permission } from "../store/auth.js";
import {
  type AuthorityRecordRow,
  type AuthorityTableRow,
  authorityRecord,
  authorityRecords,
  authorityTable,
  authorityTables,
  securityTagExists,
} from "../store/authority/read.js";
import {
  deleteAuthorityRecord,
  deleteAuthorityTable,
  type FieldValue,
  insertAuthorityRecord,
  insertAuthorityTable,
} from "../store/authority/write.js";
import { recordConfigEvent } from "../store/config-events/write.js";

/**
 * Authority records (`/api/reference-metadata`, JSON, no envelope: the shapes pyPreservica's AuthorityAPI
 * reads): tables of controlled values (places, people, subjects) and their records, each record a list of
 * `{name, value}` with a security tag.
 *
 * Every route needs a token. Tables and records are visible to callers with Read Metadata on their security
 * tag. Creating or deleting a table is for managers and administrators; adding or deleting a record needs
 * Update Metadata on the record's tag. `POST /tables/{ref}/records` takes one record as JSON, or many as CSV
 * (`Content-Type: text/csv`, a header row of field names): all are added or none. Every change records a
 * config event (category METADATA).
 */

type Ctx = Context<AppEnv>;

const MAX_FIELDS = 200;
const MAX_NAME = 256;
const MAX_VALUE = 65_536;
const RECORD_EXAMPLE = '{"securityDescriptor":"open","fieldValues":[{"name":"placename","value":"Bristol"}]}';
const TABLE_EXAMPLE = '{"name":"Places","securityDescriptor":"open","displayField":"placename"}';

export function referenceMetadataRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use(requireToken);
  app.get("/tables", (c) =>
    c.json({
      tables: authorityTables(c.get("svc").db)
        .filter((t) => mayRead(c, t.security_tag))
        .map((t) => tableJson(t)),
    }),
  );
  app.post("/tables", addTable);
  app.get("/tables/:ref", (c) => c.json(tableJson(visibleTable(c, c.req.param("ref")), true)));
  app.delete("/tables/:ref", removeTable);
  app.get("/tables/:ref/records", (c) => {
    const table = visibleTable(c, c.req.param("ref"));
    const expand = flag(c.req.query("expand"));
    const records = authorityRecords(c.get("svc").db, table.ref).filter((r) => mayRead(c, r.security_tag));
    return c.json({ records: records.map((r) => (expand ? recordJson(r) : recordSummary(r, table))) });
  });
  app.post("/tables/:ref/records", addRecords);
  app.get("/records/:ref", (c) => c.json(recordJson(visibleRecord(c, c.req.param("ref")))));
  app.delete("/records/:ref", removeRecord);
  return app;
}

function mayRead(c: Ctx, tag: string): boolean {
  return c.get("caller").permissions.permits(tag, Permission.READ_METADATA);
}

function parseJsonArray(text: string | null): unknown[] | undefined {
  return text ? (JSON.parse(text) as unknown[]) : undefined;
}

function tableJson(t: AuthorityTableRow, withFields = false) {
  return {
    ref: t.ref,
    name: t.name,
    securityDescriptor: t.security_tag,
    ...(t.description !== null ? { description: t.description } : {}),
    ...(t.display_field !== null ? { displayField: t.display_field } : {}),
    ...(t.metadata_connections !== null
      ? { metadataConnections: parseJsonArray(t.metadata_connections) }
      : {}),
    ...(withFields && t.fields !== null ? { fields: parseJsonArray(t.fields) } : {}),
  };
}

function recordJson(r: AuthorityRecordRow) {
  return {
    ref: r.ref,
    tableRef: r.table_ref,
    securityDescriptor: r.security_tag,
    fieldValues: JSON.parse(r.field_values) as FieldValue[],
  };
}

/** A record without `expand`: its ref and tag, and its display field's value when the table names one. */
function recordSummary(r: AuthorityRecordRow, t: AuthorityTableRow) {
  const display = t.display_field?.toLowerCase();
  const value = display
    ? (JSON.parse(r.field_values) as FieldValue[]).find((f) => f.name.toLowerCase() === display)?.value
    : undefined;
  return {
    ref: r.ref,
    securityDescriptor: r.security_tag,
    ...(value !== undefined ? { displayValue: value } : {}),
  };
}

function checkRef(raw: string, what: string): string {
  if (!isUuid(raw)) {
    throw new HTTPException(400, {
      message: `"${raw.slice(0, 60)}" is not ${what} reference; references are GUIDs, as GET /api/reference-metadata/tables lists them`,
    });
  }
  return raw.toLowerCase();
}

/** A table the caller may read; 404 when it does not exist or is hidden from the caller. */
function visibleTable(c: Ctx, raw: string): AuthorityTableRow {
  const table = authorityTable(c.get("svc").db, checkRef(raw, "a table"));
  if (!table || !mayRead(c, table.security_tag)) {
    throw new HTTPException(404, {
      message: `No authority table ${raw}; GET /api/reference-metadata/tables lists the tables you may read`,
    });
  }
  return table;
}

function visibleRecord(c: Ctx, raw: string): AuthorityRecordRow {
  const record = authorityRecord(c.get("svc").db, checkRef(raw, "a record"));
  if (!record || !mayRead(c, record.security_tag)) {
    throw new HTTPException(404, {
      message: `No authority record ${raw}; GET /api/reference-metadata/tables/{table}/records lists a table's records`,
    });
  }
  return record;
}

async function jsonObject(c: Ctx, example: string): Promise<Record<string, unknown>> {
  return jsonObjectOf(await c.req.text(), {
    tooDeep: `The JSON body nests deeper than ${MAX_JSON_DEPTH} levels; send ${example}`,
    notJson: `The request body is not valid JSON; send ${example}`,
    notObject: `The request body must be a JSON object such as ${example}`,
  });
}

function optionalText(
  body: Record<string, unknown>,
  field: string,
  max: number,
  example: string,
): string | null {
  const v = body[field];
  if (v === undefined || v === null) return null;
  if (typeof v !== "string" || v.length > max) {
    throw new HTTPException(400, {
      message: `"${field}" must be text of at most ${max} characters, as in ${example}`,
    });
  }
  return v;
}

function existingTag(c: Ctx, tag: string): string {
  if (!securityTagExists(c.get("svc").db, tag)) {
    throw new HTTPException(400, {
      message: `There is no security tag "${tag.slice(0, 60)}"; use one that GET /api/security/tags lists, such as open`,
    });
  }
  return tag;
}

/** POST /tables: managers and administrators; 201 `{ref}`. */
async function addTable(c: Ctx): Promise<Response> {
  checkRole(c, MANAGERS, "create authority tables");
  const body = await jsonObject(c, TABLE_EXAMPLE);
  const name = optionalText(body, "name", MAX_NAME, TABLE_EXAMPLE)?.trim();
  if (!name)
    throw new HTTPException(400, { message: `An authority table needs a "name"; send ${TABLE_EXAMPLE}` });
  const tag = existingTag(c, optionalText(body, "securityDescriptor", MAX_NAME, TABLE_EXAMPLE) ?? "open");
  const list = (field: string): unknown[] | null => {
    const v = body[field];
    if (v === undefined || v === null) return null;
    if (!Array.isArray(v) || v.length > MAX_FIELDS) {
      throw new HTTPException(400, { message: `"${field}" must be a list of at most ${MAX_FIELDS} entries` });
    }
    return v;
  };
  const fields = list("fields");
  for (const f of fields ?? []) {
    const fname = (f as Record<string, unknown> | null)?.name;
    if (typeof fname !== "string" || fname.trim() === "" || fname.length > MAX_NAME) {
      throw new HTTPException(400, {
        message: '"fields" must list objects with a "name", such as [{"name":"placename"}]',
      });
    }
  }
  const table = {
    ref: randomUUID(),
    name,
    description: optionalText(body, "description", MAX_VALUE, TABLE_EXAMPLE),
    securityTag: tag,
    displayField: optionalText(body, "displayField", MAX_NAME, TABLE_EXAMPLE),
    metadataConnections: list("metadataConnections"),
    fields,
    created: nowIso(c),
  };
  const { db } = c.get("svc");
  db.transaction(() => {
    insertAuthorityTable(db, table);
    recordConfigEvent(db, {
      username: c.get("caller").user.username,
      category: "METADATA",
      commandType: "CREATE",
      subject: `authority-table/${name}`,
      summary: `Created authority table ${name} (${tag})`,
      details: { ref: table.ref, name, securityDescriptor: tag },
    });
  })();
  return c.json({ ref: table.ref }, 201);
}

/** DELETE /tables/{ref}: managers and administrators; the table and its records; 204. */
function removeTable(c: Ctx): Response {
  checkRole(c, MANAGERS, "delete authority tables");
  const table = visibleTable(c, c.req.param("ref") ?? "");
  const { db } = c.get("svc");
  const records = authorityRecords(db, table.ref).length;
  db.transaction(() => {
    deleteAuthorityTable(db, table.ref);
    recordConfigEvent(db, {
      username: c.get("caller").user.username,
      category: "METADATA",
      commandType: "DELETE",
      subject: `authority-table/${table.name}`,
      summary: `Deleted authority table ${table.name} and its ${records} record${records === 1 ? "" : "s"}`,
      details: { ref: table.ref, name: table.name, records },
    });
  })();
  return c.body(null, 204);
}

/** The field names a table allows (lower case), or undefined when it defines none (any name goes). */
function allowedFields(table: AuthorityTableRow): Set<string> | undefined {
  const fields = parseJsonArray(table.fields);
  if (!fields || fields.length === 0) return undefined;
  return new Set(fields.map((f) => String((f as { name: string }).name).toLowerCase()));
}

function checkedFieldValues(raw: unknown, table: AuthorityTableRow, where: string): FieldValue[] {
  if (!Array.isArray(raw) || raw.length === 0 || raw.length > MAX_FIELDS) {
    throw new HTTPException(400, {
      message: `${where}: "fieldValues" must be a list of 1 to ${MAX_FIELDS} {name, value} pairs, as in ${RECORD_EXAMPLE}`,
    });
  }
  const allowed = allowedFields(table);
  return raw.map((pair) => {
    const p = pair as Record<string, unknown> | null;
    const name = p?.name;
    const value = p?.value;
    if (typeof name !== "string" || name.trim() === "" || name.length > MAX_NAME) {
      throw new HTTPException(400, {
        message: `${where}: each field value needs a "name" of 1 to ${MAX_NAME} characters`,
      });
    }
    if (!["string", "number", "boolean"].includes(typeof value) || String(value).length > MAX_VALUE) {
      throw new HTTPException(400, {
        message: `${where}: field ${name.slice(0, 60)} needs a "value" (text or a number) of at most ${MAX_VALUE} characters`,
      });
    }
    if (allowed && !allowed.has(name.toLowerCase())) {
      throw new HTTPException(400, {
        message: `${where}: table ${table.name} has no field "${name.slice(0, 60)}"; its fields are ${[...allowed].join(", ")}`,
      });
    }
    return { name, value: String(value) };
  });
}

function mayUpdate(c: Ctx, tag: string): void {
  if (!c.get("caller").permissions.permits(tag, Permission.UPDATE_METADATA)) {
    throw new HTTPException(403, {
      message: `Adding or deleting authority records with security tag ${tag} needs ${Permission.UPDATE_METADATA} on it, which user ${c.get("caller").user.username} lacks`,
    });
  }
}

/**
 * POST /tables/{ref}/records: one record as JSON → 201 `{ref}`; or CSV (text/csv; the header row names the
 * fields, `?securityDescriptor=` the tag, default the table's) → 201 `{records:[{ref}], imported}`.
 */
async function addRecords(c: Ctx): Promise<Response> {
  const table = visibleTable(c, c.req.param("ref") ?? "");
  const isCsv = /^(text\/csv|application\/csv)/i.test(c.req.header("content-type") ?? "");
  const created = nowIso(c);
  let records: { ref: string; securityTag: string; fieldValues: FieldValue[] }[];
  if (isCsv) {
    const tag = existingTag(c, c.req.query("securityDescriptor") ?? table.security_tag);
    mayUpdate(c, tag);
    records = csvRows(await c.req.text(), table).map((fieldValues) => ({
      ref: randomUUID(),
      securityTag: tag,
      fieldValues,
    }));
  } else {
    const body = await jsonObject(c, RECORD_EXAMPLE);
    const tag = existingTag(
      c,
      optionalText(body, "securityDescriptor", MAX_NAME, RECORD_EXAMPLE) ?? table.security_tag,
    );
    mayUpdate(c, tag);
    records = [
      {
        ref: randomUUID(),
        securityTag: tag,
        fieldValues: checkedFieldValues(body.fieldValues, table, "The record"),
      },
    ];
  }
  const { db } = c.get("svc");
  db.transaction(() => {
    for (const r of records) insertAuthorityRecord(db, { ...r, tableRef: table.ref, created });
    recordConfigEvent(db, {
      username: c.get("caller").user.username,
      category: "METADATA",
      commandType: "CREATE",
      subject: `authority-table/${table.name}`,
      summary: isCsv
        ? `Imported ${records.length} record${records.length === 1 ? "" : "s"} into authority table ${table.name} from CSV`
        : `Added a record to authority table ${table.name}`,
      details: { table: table.ref, records: records.map((r) => r.ref).slice(0, 100), count: records.length },
    });
  })();
  if (isCsv) return c.json({ records: records.map((r) => ({ ref: r.ref })), imported: records.length }, 201);
  return c.json({ ref: records[0]?.ref }, 201);
}

const MAX_CSV_ROWS = 10_000;

/** CSV rows as field values: the header row names the fields; empty cells are left out. */
function csvRows(text: string, table: AuthorityTableRow): FieldValue[][] {
  let rows: string[][];
  try {
    rows = parse(text, { bom: true, skip_empty_lines: true, relax_column_count: false }) as string[][];
  } catch (err) {
    const why = err instanceof CsvError ? err.message.slice(0, 200) : "it could not be read";
    throw new HTTPException(400, {
      message: `The CSV could not be read (${why}); send a header row of field names, then one row per record`,
    });
  }
  const [header, ...data] = rows;
  if (!header || data.length === 0) {
    throw new HTTPException(400, {
      message: "The CSV needs a header row of field names and at least one record row",
    });
  }
  if (data.length > MAX_CSV_ROWS) {
    throw new HTTPException(400, {
      message: `The CSV has ${data.length} records; import at most ${MAX_CSV_ROWS} at a time`,
    });
  }
  const names = header.map((h) => h.trim());
  if (names.some((n) => n === "") || new Set(names.map((n) => n.toLowerCase())).size !== names.length) {
    throw new HTTPException(400, {
      message: "The CSV header row must name every column once, with no blank names",
    });
  }
  return data.map((row, i) =>
    checkedFieldValues(
      names.flatMap((name, col) =>
        row[col] !== undefined && row[col] !== "" ? [{ name, value: row[col] }] : [],
      ),
      table,
      `CSV record ${i + 1} (line ${i + 2})`,
    ),
  );
}

/** DELETE /records/{ref}: Update Metadata on the record's tag; 204. */
function removeRecord(c: Ctx): Response {
  const record = visibleRecord(c, c.req.param("ref") ?? "");
  mayUpdate(c, record.security_tag);
  const { db } = c.get("svc");
  const table = authorityTable(db, record.table_ref);
  db.transaction(() => {
    deleteAuthorityRecord(db, record.ref);
    recordConfigEvent(db, {
      username: c.get("caller").user.username,
      category: "METADATA",
      commandType: "DELETE",
      subject: `authority-table/${table?.name ?? record.table_ref}`,
      summary: `Deleted record ${record.ref} from authority table ${table?.name ?? record.table_ref}`,
      details: { table: record.table_ref, record: record.ref },
    });
  })();
  return c.body(null, 204);
}
