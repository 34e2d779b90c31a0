import { createHash } from "node:crypto";
import { CsvError, parse } from "csv-parse/sync";
import { type Entity, EntityApi } from "./entity.js";
import { isServiceError } from "./errors.js";
import type { HttpClient } from "./http.js";
import { metadataFields } from "./metadata-fields.js";
import { looksLikeRef } from "./refs.js";

/**
 * Metadata CSV edits: the metadata groups whose fields the columns name (`/api/metadata/groups`, JSON), the
 * edit itself (`POST /api/entity/actions/metadata-csv-edits`, answered with a progress token), and a dry
 * run. The service has no dry run of its own, so `dryRun` reads the CSV exactly as the service does
 * (docs/repository-api/metadata-groups-and-csv.md), reads each row's entity and its current group
 * document, and works out row by row what applying would do: which fields change from what to what, which
 * rows change nothing, and which the service would refuse and why. Nothing is written. Nothing MCP-specific.
 */

export const TEMPLATE_COLUMN = "PRESERVICA_CSV_TEMPLATE";
export const REF_COLUMN = "PRESERVICA_ENTITY_REF";
/** Rows a dry run reads (each is one or two requests); the service itself takes up to 1 MiB of CSV. */
export const MAX_DRY_RUN_ROWS = 2000;
/** The service's cap on a request body. */
export const MAX_CSV_BYTES = 1024 * 1024;

export interface MetadataGroupSummary {
  id: string;
  name: string;
  description: string;
  schemaUri: string;
}

export interface MetadataGroupField {
  id: string;
  name: string;
  type: "STRING" | "LONGSTRING" | "DATE" | "NUMBER";
  minOccurs: number;
  maxOccurs: number;
  values?: string[];
  defaultValue: string;
  maxLength?: number;
}

export interface MetadataGroup extends MetadataGroupSummary {
  fields: MetadataGroupField[];
}

/** A group as create and update send it: fields as objects, kept as given apart from the wire's strings. */
export interface GroupInput {
  name: string;
  description: string;
  fields: Record<string, unknown>[];
}

/** Numbers and booleans as strings ("0", "True"), as real clients send a group and the service expects. */
function groupWire(g: GroupInput): Record<string, unknown> {
  const str = (v: unknown) =>
    typeof v === "boolean" ? (v ? "True" : "False") : typeof v === "number" ? String(v) : v;
  const fields = g.fields.map((f) => Object.fromEntries(Object.entries(f).map(([k, v]) => [k, str(v)])));
  return { name: g.name, description: g.description, fields };
}

/** A group's JSON → the group (numbers read leniently: the real service may send strings). */
export function readGroup(o: Record<string, unknown>, id: string): MetadataGroup {
  const num = (v: unknown, d: number) =>
    v === undefined || v === "" || Number.isNaN(Number(v)) ? d : Number(v);
  const fields = (Array.isArray(o.fields) ? o.fields : []).map((raw) => {
    const f = (raw ?? {}) as Record<string, unknown>;
    const type = String(f.type ?? "STRING").toUpperCase();
    const maxLength = f.maxLength === undefined ? undefined : num(f.maxLength, -1);
    return {
      id: String(f.id ?? ""),
      name: String(f.name ?? f.id ?? ""),
      type: (["STRING", "LONGSTRING", "DATE", "NUMBER"].includes(type)
        ? type
        : "STRING") as MetadataGroupField["type"],
      minOccurs: num(f.minOccurs, 0),
      maxOccurs: num(f.maxOccurs, 1),
      ...(Array.isArray(f.values) && f.values.length ? { values: f.values.map(String) } : {}),
      defaultValue: String(f.defaultValue ?? ""),
      ...(maxLength !== undefined && maxLength > 0 ? { maxLength } : {}),
    };
  });
  return {
    id: String(o.id ?? id),
    name: String(o.name ?? ""),
    description: String(o.description ?? ""),
    schemaUri: String(o.schemaUri ?? ""),
    fields,
  };
}

/** What is wrong with the CSV as a whole (the service would refuse it with a 400); nothing was sent. */
export class CsvFileError extends Error {
  override readonly name = "CsvFileError";
}

/** One field's change in a row: `before` absent when the document had no such field (or no document). */
export interface CsvFieldChange {
  group: string;
  schemaUri: string;
  field: string;
  before?: string;
  after: string;
}

export type CsvRowOutcome = "add" | "update" | "unchanged" | "refused";

export interface CsvRowPlan {
  /** Row number among the rows applied, from 1 (the service's item number). */
  seq: number;
  /** Line of the file the row ends on. */
  line: number;
  ref: string;
  title?: string;
  entityType?: "SO" | "IO";
  outcome: CsvRowOutcome;
  /** Why the service would refuse the row. */
  reason?: string;
  changes: CsvFieldChange[];
}

export interface CsvDryRun {
  /** sha256 of the CSV text. */
  csvDigest: string;
  columns: { group: string; schemaUri: string; field: string }[];
  rows: CsvRowPlan[];
  counts: { rows: number; add: number; update: number; unchanged: number; refused: number };
  /** Each entity the rows would change, with a digest of the state the dry run saw (tag and documents). */
  targets: { ref: string; title: string; state: string }[];
  /** Digest of the CSV and of every target's state: changes when either does. */
  digest: string;
}

// ---- reading the CSV as the service does ------------------------------------------------------------------

interface CsvRecord {
  cells: string[];
  line: number;
}

/** The header's pieces: `<schemaUri>;/<prefix:>element/<prefix:>field`. */
const FIELD_HEADER = /^([^;]+);\s*\/(?:[^/:]+:)?([^/:]+)\/(?:[^/:]+:)?([^/:]+)$/;
const EXAMPLE = `"${TEMPLATE_COLUMN}","${REF_COLUMN}","http://www.preservica.com/metadata/group/accession;/ns:accession/ns:number"`;

function clip(s: string, max = 100): string {
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** A group's document root element: the last segment of its schema URI. */
export function groupElement(schemaUri: string): string {
  return schemaUri.slice(schemaUri.lastIndexOf("/") + 1);
}

/** CSV bytes as the service reads them: UTF-8 (a BOM is fine), else ISO-8859-1. */
export function decodeCsv(bytes: Uint8Array): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return Buffer.from(bytes).toString("latin1");
  }
}

function readRecords(text: string): CsvRecord[] {
  const nul = text.indexOf("\u0000");
  if (nul >= 0) {
    throw new CsvFileError(
      `The CSV holds a NUL character (line ${text.slice(0, nul).split("\n").length}), so it is not a text CSV file; save it as CSV (UTF-8).`,
    );
  }
  try {
    const records = parse(text, {
      bom: true,
      trim: true,
      relax_column_count: true,
      skip_empty_lines: true,
      skip_records_with_empty_values: true,
      info: true,
    }) as unknown as { record: string[]; info: { lines: number } }[];
    return records.map((r) => ({ cells: r.record, line: r.info.lines }));
  } catch (err) {
    if (!(err instanceof CsvError)) throw err;
    throw new CsvFileError(
      `The CSV could not be read (${err.message}); use comma-separated values, quoting cells that hold commas, quotes or line breaks, with a header row such as ${EXAMPLE}.`,
    );
  }
}

interface Column {
  cell: number;
  group: MetadataGroup;
  field: MetadataGroupField;
}

interface ParsedEdit {
  columns: Column[];
  rows: { seq: number; line: number; ref: string; values: string[]; problem?: string }[];
}

/** The schema URIs the header's field columns name (to know which groups to read). */
function headerSchemas(text: string): { records: CsvRecord[]; schemas: Set<string> } {
  const records = readRecords(text);
  const schemas = new Set<string>();
  for (const h of records[0]?.cells ?? []) {
    const m = FIELD_HEADER.exec(h.trim());
    if (m?.[1]) schemas.add(m[1].trim());
  }
  return { records, schemas };
}

/** Checks the file as a whole, as the service does before it starts (its 400s); CsvFileError when it would refuse. */
function readEdit(records: CsvRecord[], groups: readonly MetadataGroup[], allGroups: number): ParsedEdit {
  const [head, ...body] = records;
  if (!head)
    throw new CsvFileError(
      `The CSV is empty; give a header row such as ${EXAMPLE}, then one row per entity.`,
    );
  const known = new Map<string, { group: MetadataGroup; field: MetadataGroupField }>();
  for (const g of groups)
    for (const f of g.fields)
      known.set(`${g.schemaUri}|${groupElement(g.schemaUri)}|${f.id}`, { group: g, field: f });
  const header = head.cells.map((h) => h.trim());
  const seen = new Map<string, number>();
  const unknown: string[] = [];
  const columns: Column[] = [];
  let refCell = -1;
  header.forEach((h, cell) => {
    if (h === "") {
      if (body.some((r) => (r.cells[cell] ?? "").trim() !== ""))
        unknown.push(`(column ${cell + 1}, which has no header but has values)`);
      return;
    }
    const m = FIELD_HEADER.exec(h);
    const key = m ? `${m[1]?.trim()}|${m[2]}|${m[3]}` : h.toUpperCase();
    const again = seen.get(key);
    if (again !== undefined)
      throw new CsvFileError(
        `Columns ${again + 1} and ${cell + 1} of the CSV are the same ("${clip(h)}"); give each column once.`,
      );
    seen.set(key, cell);
    if (h.toUpperCase() === REF_COLUMN) refCell = cell;
    else if (h.toUpperCase() !== TEMPLATE_COLUMN) {
      const k = m ? known.get(key) : undefined;
      if (k) columns.push({ cell, ...k });
      else unknown.push(h);
    }
  });
  if (unknown.length > 0) {
    const listed = unknown
      .slice(0, 10)
      .map((u) => `"${clip(u)}"`)
      .join(", ");
    const knownCols = [...known.values()]
      .slice(0, 20)
      .map((k) => `"${k.group.schemaUri};/ns:${groupElement(k.group.schemaUri)}/ns:${k.field.id}"`);
    throw new CsvFileError(
      `The CSV has ${unknown.length === 1 ? "a column that is" : `${unknown.length} columns that are`} not a field of any metadata group: ${listed}${unknown.length > 10 ? " …" : ""}. ${
        allGroups === 0
          ? "The repository has no metadata groups (a manager creates them with `manage_metadata_group`)."
          : knownCols.length
            ? `Known columns of the groups named: ${knownCols.join(", ")}.`
            : `Columns look like "<group schema URI>;/ns:<group>/ns:<field id>"; the repository has ${allGroups} group(s): \`list_metadata_groups\` gives their columns.`
      }`,
    );
  }
  if (refCell < 0)
    throw new CsvFileError(
      `The CSV has no ${REF_COLUMN} column, so no row says which entity to edit; add it, e.g. ${EXAMPLE}.`,
    );
  if (columns.length === 0)
    throw new CsvFileError(
      `The CSV has no metadata group field columns, so there is nothing to apply; add columns like ${EXAMPLE}.`,
    );
  const rows: ParsedEdit["rows"] = [];
  body.forEach((r, i) => {
    const ref = (r.cells[refCell] ?? "").trim();
    if (i === 0 && ref.toLowerCase() === "entity ref") return; // a template's row of labels
    const extra = r.cells.slice(header.length).filter((c) => c.trim() !== "").length;
    rows.push({
      seq: rows.length + 1,
      line: r.line,
      ref,
      values: columns.map(({ cell }) => (r.cells[cell] ?? "").trim()),
      ...(extra > 0
        ? {
            problem: `line ${r.line} has ${r.cells.length} cells but the header has ${header.length} columns; quote cells that contain commas`,
          }
        : {}),
    });
  });
  if (rows.length === 0)
    throw new CsvFileError("The CSV has a header but no rows; add one row per entity to edit.");
  return { columns, rows };
}

// ---- values and documents ----------------------------------------------------------------------------------

const DATE = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

function isDate(value: string): boolean {
  const m = DATE.exec(value);
  if (!m) return false;
  const [y, mo, d, h = "0", mi = "0", s = "0"] = m.slice(1).map((x) => x ?? "0") as string[];
  const date = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)));
  return (
    date.getUTCFullYear() === Number(y) &&
    date.getUTCMonth() === Number(mo) - 1 &&
    date.getUTCDate() === Number(d) &&
    Number(h) < 24 &&
    Number(mi) < 60 &&
    Number(s) < 60
  );
}

/** Why `value` does not fit `field` (the service refuses the row then), or undefined. */
export function valueProblem(field: MetadataGroupField, value: string): string | undefined {
  const what = `field "${field.id}" (${field.type})`;
  if (field.values?.length && !field.values.includes(value))
    return `"${clip(value)}" is not one of the values ${what} allows: ${field.values.map((v) => `"${v}"`).join(", ")}`;
  if (field.type === "NUMBER" && !/^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/.test(value))
    return `"${clip(value)}" is not a number, which ${what} needs`;
  if (field.type === "DATE" && !isDate(value))
    return `"${clip(value)}" is not a date, which ${what} needs; write an ISO 8601 date such as 2024-01-31`;
  if (
    field.type === "STRING" &&
    field.maxLength !== undefined &&
    field.maxLength > 0 &&
    [...value].length > field.maxLength
  )
    return `the value of ${what} is ${[...value].length} characters long; it may have at most ${field.maxLength}`;
  return undefined;
}

/** An entity's group document as the dry run tracks it: the field values (repeats kept), or why it is unusable. */
interface DocState {
  exists: boolean;
  values: Map<string, string[]>;
  /** Fields whose element holds elements rather than text (writing replaces them). */
  nested: Set<string>;
  problem?: string;
}

function docState(xml: string | undefined, schemaUri: string): DocState {
  const empty: DocState = { exists: xml !== undefined, values: new Map(), nested: new Set() };
  if (xml === undefined) return empty;
  let parsed: ReturnType<typeof metadataFields>;
  try {
    parsed = metadataFields(xml);
  } catch {
    return {
      ...empty,
      problem: `the entity's existing ${schemaUri} document is not well-formed XML, so it cannot be updated`,
    };
  }
  const element = groupElement(schemaUri);
  if (parsed.root !== element)
    return {
      ...empty,
      problem: `the entity's existing ${schemaUri} document has the root element ${parsed.root}, not ${element}`,
    };
  for (const f of parsed.fields) {
    const [head, ...rest] = f.name.split("/");
    if (!head || head.includes("@") || head.startsWith("@")) continue;
    if (rest.length > 0) {
      empty.nested.add(head);
      continue;
    }
    empty.values.set(head, [...(empty.values.get(head) ?? []), f.value]);
  }
  return empty;
}

/** `sha256:<hex>` of a text; a CSV's is what a dry run reports and a confirmed apply compares. */
export function sha256(text: string): string {
  return `sha256:${createHash("sha256").update(text).digest("hex")}`;
}

// ---- the client --------------------------------------------------------------------------------------------

interface TargetRead {
  entity?: Entity;
  refusal?: string;
  /** Group documents by schema URI (undefined = none). */
  documents: Map<string, string | undefined>;
}

export class MetadataCsvApi {
  private readonly entity: EntityApi;

  constructor(private readonly http: HttpClient) {
    this.entity = new EntityApi(http);
  }

  /** Every metadata group (without fields). */
  async groups(signal?: AbortSignal): Promise<MetadataGroupSummary[]> {
    const res = await this.http.request<{ groups?: unknown[] }>({
      path: "/api/metadata/groups",
      accept: "application/json",
      operation: "metadata.groups",
      signal,
    });
    const list = Array.isArray(res.data?.groups) ? res.data.groups : [];
    return list.map((g) => {
      const o = (g ?? {}) as Record<string, unknown>;
      return {
        id: String(o.id ?? ""),
        name: String(o.name ?? ""),
        description: String(o.description ?? ""),
        schemaUri: String(o.schemaUri ?? ""),
      };
    });
  }

  /** One group with its fields (numbers and booleans read leniently: the real service may send strings). */
  async group(id: string, signal?: AbortSignal): Promise<MetadataGroup> {
    return readGroup(await this.groupJson(id, signal), id);
  }

  /** One group as the service sends it, every property of every field kept (what an update sends back). */
  async groupJson(id: string, signal?: AbortSignal): Promise<Record<string, unknown>> {
    const res = await this.http.request<Record<string, unknown>>({
      path: `/api/metadata/groups/${encodeURIComponent(id)}`,
      accept: "application/json",
      operation: "metadata.group",
      signal,
    });
    return res.data && typeof res.data === "object" ? res.data : {};
  }

  /** Creates a group (managers); the service makes its schema URI from the name. */
  async createGroup(g: GroupInput, signal?: AbortSignal): Promise<MetadataGroup> {
    return this.sendGroup("POST", "/api/metadata/groups/", g, "metadata.createGroup", signal);
  }

  /** Replaces a group's name, description and fields; its schema URI stays. */
  async updateGroup(id: string, g: GroupInput, signal?: AbortSignal): Promise<MetadataGroup> {
    const path = `/api/metadata/groups/${encodeURIComponent(id)}`;
    return this.sendGroup("PUT", path, g, "metadata.updateGroup", signal);
  }

  /** Deletes a group's definition (documents already written keep their schema URI). */
  async deleteGroup(id: string, signal?: AbortSignal): Promise<void> {
    const path = `/api/metadata/groups/${encodeURIComponent(id)}`;
    await this.http.request({ method: "DELETE", path, operation: "metadata.deleteGroup", signal });
  }

  private async sendGroup(
    method: "POST" | "PUT",
    path: string,
    g: GroupInput,
    operation: string,
    signal?: AbortSignal,
  ): Promise<MetadataGroup> {
    const res = await this.http.request<Record<string, unknown>>({
      method,
      path,
      body: JSON.stringify(groupWire(g)),
      headers: { "content-type": "application/json" },
      accept: "application/json",
      operation,
      idempotent: method === "PUT",
      signal,
    });
    return readGroup(res.data && typeof res.data === "object" ? res.data : {}, "");
  }

  /** Starts the edit as an action; answers its progress token (the job handle). */
  async submit(csv: string, signal?: AbortSignal): Promise<string> {
    const res = await this.http.request<string>({
      method: "POST",
      path: "/api/entity/actions/metadata-csv-edits",
      body: csv,
      headers: { "content-type": "text/csv;charset=UTF-8" },
      accept: "text/plain",
      responseType: "text",
      operation: "metadataCsv.submit",
      idempotent: false,
      signal,
    });
    return String(res.data ?? "").trim();
  }

  /** The rows of a CSV edit, counted as the service counts them (no entity is read). CsvFileError when unusable. */
  async rowCount(csv: string, signal?: AbortSignal): Promise<number> {
    const { records, schemas } = headerSchemas(csv);
    const all = await this.groups(signal);
    const groups = await Promise.all(
      all.filter((g) => schemas.has(g.schemaUri)).map((g) => this.group(g.id, signal)),
    );
    return readEdit(records, groups, all.length).rows.length;
  }

  /**
   * What applying `csv` would do, row by row, without changing anything: reads the groups its columns name,
   * then each row's entity and its current document of each group, and plays the rows in order (a later row
   * of the same entity sees the earlier one's values). CsvFileError when the service would refuse the file.
   */
  async dryRun(csv: string, opts: { signal?: AbortSignal; concurrency?: number } = {}): Promise<CsvDryRun> {
    const { signal } = opts;
    const { records, schemas } = headerSchemas(csv);
    const all = await this.groups(signal);
    const groups = await Promise.all(
      all.filter((g) => schemas.has(g.schemaUri)).map((g) => this.group(g.id, signal)),
    );
    const edit = readEdit(records, groups, all.length);
    if (edit.rows.length > MAX_DRY_RUN_ROWS)
      throw new CsvFileError(
        `The CSV has ${edit.rows.length} rows; a dry run reads at most ${MAX_DRY_RUN_ROWS}. Split it into files of at most ${MAX_DRY_RUN_ROWS} rows.`,
      );

    // Which group documents each entity needs, then read them (a few entities at a time).
    const needs = new Map<string, Set<string>>();
    for (const row of edit.rows) {
      if (row.problem || !looksLikeRef(row.ref) || !row.ref.includes("-")) continue;
      const ref = row.ref.toLowerCase();
      const set = needs.get(ref) ?? new Set<string>();
      edit.columns.forEach((c, i) => {
        if (row.values[i]) set.add(c.group.schemaUri);
      });
      needs.set(ref, set);
    }
    const reads = new Map<string, TargetRead>();
    const queue = [...needs.entries()];
    const worker = async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        reads.set(next[0], await this.readTarget(next[0], next[1], signal));
      }
    };
    await Promise.all(Array.from({ length: Math.min(opts.concurrency ?? 4, queue.length) }, worker));

    // Play the rows in order over the documents as read.
    const states = new Map<string, DocState>();
    const stateOf = (ref: string, schemaUri: string): DocState => {
      const key = `${ref}|${schemaUri}`;
      let s = states.get(key);
      if (!s) {
        s = docState(reads.get(ref)?.documents.get(schemaUri), schemaUri);
        states.set(key, s);
      }
      return s;
    };
    const rows: CsvRowPlan[] = [];
    const changedRefs = new Set<string>();
    for (const row of edit.rows) {
      const base = { seq: row.seq, line: row.line, ref: row.ref };
      const refuse = (reason: string, extra: Partial<CsvRowPlan> = {}) =>
        rows.push({ ...base, ...extra, outcome: "refused", reason, changes: [] });
      if (row.problem) {
        refuse(row.problem);
        continue;
      }
      if (row.ref === "") {
        refuse(`no entity reference in the ${REF_COLUMN} column`);
        continue;
      }
      if (!looksLikeRef(row.ref) || !row.ref.includes("-")) {
        refuse(
          `the entity reference "${clip(row.ref, 60)}" is not a UUID (refs look like 7f3e2a10-1c2b-4d5e-8f90-0a1b2c3d4e5f)`,
        );
        continue;
      }
      const ref = row.ref.toLowerCase();
      const target = reads.get(ref);
      const e = target?.entity;
      const who = e ? { title: e.title, ...(e.type !== "CO" ? { entityType: e.type } : {}) } : {};
      if (!e || target.refusal) {
        refuse(target?.refusal ?? `no entity ${ref} exists`, who);
        continue;
      }
      // Values by group, in column order.
      const byGroup = new Map<string, { group: MetadataGroup; values: Map<string, string> }>();
      edit.columns.forEach((c, i) => {
        const v = row.values[i] ?? "";
        if (v === "") return;
        const entry = byGroup.get(c.group.schemaUri) ?? { group: c.group, values: new Map<string, string>() };
        entry.values.set(c.field.id, v);
        byGroup.set(c.group.schemaUri, entry);
      });
      if (byGroup.size === 0) {
        rows.push({ ...base, ...who, outcome: "unchanged", changes: [] });
        continue;
      }
      let problem: string | undefined;
      let added = false;
      const changes: CsvFieldChange[] = [];
      const updates: { state: DocState; values: Map<string, string> }[] = [];
      for (const { group, values } of byGroup.values()) {
        for (const f of group.fields) {
          const v = values.get(f.id);
          problem ??= v === undefined ? undefined : valueProblem(f, v);
        }
        const state = stateOf(ref, group.schemaUri);
        problem ??= state.problem;
        if (problem) break;
        const after = new Map<string, string>();
        if (!state.exists) {
          added = true;
          for (const f of group.fields) {
            let v = values.get(f.id);
            if (v === undefined && f.minOccurs > 0) {
              if (f.defaultValue === "") {
                problem = `field "${f.id}" of group "${group.name}" is required and has no default value; give it a value in this row`;
                break;
              }
              v = f.defaultValue;
            }
            if (v === undefined) continue;
            after.set(f.id, v);
            changes.push({ group: group.name, schemaUri: group.schemaUri, field: f.id, after: v });
          }
        } else {
          for (const f of group.fields) {
            const v = values.get(f.id);
            if (v === undefined) continue;
            const present = state.values.get(f.id) ?? [];
            if (present.length === 1 && present[0] === v && !state.nested.has(f.id)) continue; // already so
            after.set(f.id, v);
            changes.push({
              group: group.name,
              schemaUri: group.schemaUri,
              field: f.id,
              ...(present.length || state.nested.has(f.id)
                ? { before: present.length ? present.join(" | ") : "(nested elements)" }
                : {}),
              after: v,
            });
          }
        }
        if (problem) break;
        updates.push({ state, values: after });
      }
      if (problem) {
        refuse(problem, who);
        continue;
      }
      for (const u of updates) {
        u.state.exists = true;
        for (const [k, v] of u.values) {
          u.state.values.set(k, [v]);
          u.state.nested.delete(k);
        }
      }
      const outcome: CsvRowOutcome = added ? "add" : changes.length > 0 ? "update" : "unchanged";
      if (outcome !== "unchanged") changedRefs.add(ref);
      rows.push({ ...base, ref, ...who, outcome, changes });
    }

    const counts = { rows: rows.length, add: 0, update: 0, unchanged: 0, refused: 0 };
    for (const r of rows) counts[r.outcome]++;
    const csvDigest = sha256(csv);
    const targets = [...changedRefs].map((ref) => {
      const t = reads.get(ref) as TargetRead;
      const docs = [...t.documents.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
      const state = sha256(
        JSON.stringify([t.entity?.type, t.entity?.securityTag, docs.map(([s, d]) => [s, d ?? null])]),
      );
      return { ref, title: t.entity?.title ?? "", state };
    });
    const digest = sha256(JSON.stringify([csvDigest, targets.map((t) => [t.ref, t.state])]));
    return {
      csvDigest,
      columns: edit.columns.map((c) => ({
        group: c.group.name,
        schemaUri: c.group.schemaUri,
        field: c.field.id,
      })),
      rows,
      counts,
      targets,
      digest,
    };
  }

  /** An entity and its first document of each schema, or why a row naming it would be refused. */
  private async readTarget(ref: string, schemas: Set<string>, signal?: AbortSignal): Promise<TargetRead> {
    const documents = new Map<string, string | undefined>();
    let entity: Entity;
    try {
      entity = await this.entity.get(ref, undefined, signal);
    } catch (err) {
      if (isServiceError(err) && err.isNotFound)
        return { documents, refusal: `no entity ${ref} exists (or it is in the recycle bin)` };
      if (isServiceError(err) && err.status === 403)
        return { documents, refusal: `you may not read entity ${ref} (no permission on its security tag)` };
      throw err;
    }
    if (entity.type === "CO")
      return {
        entity,
        documents,
        refusal: `entity ${ref} is a content object; group metadata belongs on its asset or folder`,
      };
    for (const schemaUri of schemas) {
      const fragment = entity.fragments.find((f) => f.schema === schemaUri);
      documents.set(
        schemaUri,
        fragment ? (await this.entity.metadata(fragment, signal)).document : undefined,
      );
    }
    return { entity, documents };
  }
}
