import { HTTPException } from "hono/http-exception";
import { jsonObjectOf, MAX_JSON_DEPTH } from "../http/params.js";

/**
 * Metadata groups and forms as the JSON metadata API takes them. Real clients send every number and
 * boolean of a group as a string (`"minOccurs": "0"`, `"visible": "True"`); documentation examples send
 * real JSON values. Both are read here into one normalised definition, and anything that cannot be read
 * is a 400 that names the field, the value and what to send instead.
 */

export const FIELD_TYPES = ["STRING", "LONGSTRING", "DATE", "NUMBER"] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/**
 * Most fields a group may have. Each field is a CSV column and an indexed search field; a thousand is
 * far beyond any real group, and a body of 10,000 junk fields is refused rather than stored.
 */
export const MAX_GROUP_FIELDS = 1000;

/** `maxOccurs` of a field that may repeat without limit. */
export const UNBOUNDED = -1;

export interface GroupField {
  /** The XML element name of the field inside the group's document. */
  id: string;
  /** The label people see. */
  name: string;
  type: FieldType;
  minOccurs: number;
  /** At least 1, or UNBOUNDED. */
  maxOccurs: number;
  visible: boolean;
  editable: boolean;
  /** A controlled list: when present, a value must be one of these. */
  values?: string[];
  defaultValue: string;
  indexed: boolean;
  /** Longest value of a STRING field, when limited. */
  maxLength?: number;
}

/** What a client sends to create or replace a group. */
export interface GroupInput {
  name: string;
  description: string;
  fields: GroupField[];
}

export interface MetadataGroup extends GroupInput {
  id: string;
  schemaUri: string;
}

/** Where group schema URIs live: `<base>/<element name>`, e.g. …/metadata/group/mcd_metadata. */
export const GROUP_SCHEMA_BASE = "http://www.preservica.com/metadata/group/";

const FIELD_ID = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

const GROUP_EXAMPLE =
  '{"name":"Accession","description":"Accession details","fields":[{"id":"accession_number","name":"Accession number","type":"STRING","minOccurs":"0","maxOccurs":"1","visible":"True","editable":"True","defaultValue":"","indexed":"True"}]}';
const FORM_EXAMPLE =
  '{"title":"Accession form","schemaUri":"http://www.preservica.com/metadata/group/accession"}';

function bad(message: string): HTTPException {
  return new HTTPException(400, { message });
}

/**
 * The XML element name (and last segment of the schema URI) made from a group's name: lower case,
 * runs of anything but a-z and 0-9 become one "_" ("McD Metadata" → mcd_metadata), as the real service
 * does. It must start with a letter to be an XML element name.
 */
export function elementNameFor(groupName: string): string {
  const slug = groupName
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
  if (!/^[a-z]/.test(slug)) {
    throw bad(
      `A group's name must start with a letter (a-z): its schema URI and XML element name are made from it ("McD Metadata" gives ${GROUP_SCHEMA_BASE}mcd_metadata), got "${clip(groupName)}"`,
    );
  }
  return slug;
}

export function schemaUriFor(groupName: string): string {
  return GROUP_SCHEMA_BASE + elementNameFor(groupName);
}

/** The root element name of a group's documents: the last path segment of its schema URI. */
export function elementNameOf(schemaUri: string): string {
  return schemaUri.slice(schemaUri.lastIndexOf("/") + 1);
}

/** A JSON request body as an object; 400 with an example otherwise. */
export function parseJsonObject(text: string, what: "group" | "form"): Record<string, unknown> {
  const example = what === "group" ? GROUP_EXAMPLE : FORM_EXAMPLE;
  return jsonObjectOf(text.replace(/^\uFEFF/, ""), {
    tooDeep: `The request body nests deeper than ${MAX_JSON_DEPTH} levels; send a ${what} such as ${example}`,
    notJson: (err) => {
      const reason = text.trim() === "" ? "the body is empty" : err.message;
      return `The request body is not valid JSON (${reason}); send a ${what} such as ${example}`;
    },
    notObject: `The request body must be a JSON object; send a ${what} such as ${example}`,
  });
}

/** Sent text as a message shows it: at most 100 characters (junk may be megabytes long). */
function clip(text: string): string {
  return text.length > 100 ? `${text.slice(0, 100)}…` : text;
}

function show(v: unknown): string {
  return clip(JSON.stringify(v) ?? String(v));
}

function text(v: unknown, where: string, opts: { required: boolean; fallback?: string }): string {
  if (v === undefined || v === null) {
    if (opts.required) throw bad(`${where} is required: a non-empty string`);
    return opts.fallback ?? "";
  }
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  if (typeof v !== "string") throw bad(`${where} must be a string, got ${show(v)}`);
  if (opts.required && v.trim() === "") throw bad(`${where} is required: a non-empty string`);
  return v;
}

/** A whole number sent as a JSON number or a string of digits ("0", "-1"). */
function whole(v: unknown, where: string, fallback: number): number {
  if (v === undefined || v === null || v === "") return fallback;
  const n = typeof v === "number" ? v : typeof v === "string" && /^\s*-?\d+\s*$/.test(v) ? Number(v) : NaN;
  if (!Number.isSafeInteger(n)) throw bad(`${where} must be a whole number such as "1" or 1, got ${show(v)}`);
  return n;
}

/** A boolean sent as JSON true/false or as a string "True"/"true"/"False"/"false". */
function flag(v: unknown, where: string, fallback: boolean): boolean {
  if (v === undefined || v === null || v === "") return fallback;
  if (typeof v === "boolean") return v;
  if (typeof v === "string" && /^(true|false)$/i.test(v.trim())) return v.trim().toLowerCase() === "true";
  throw bad(`${where} must be true or false (or the strings "True"/"False"), got ${show(v)}`);
}

function fieldType(v: unknown, where: string): FieldType {
  if (v === undefined || v === null || v === "") return "STRING";
  const t = typeof v === "string" ? v.trim().toUpperCase() : "";
  if (!(FIELD_TYPES as readonly string[]).includes(t)) {
    throw bad(`${where} must be one of ${FIELD_TYPES.join(", ")}, got ${show(v)}`);
  }
  return t as FieldType;
}

function readField(raw: unknown, index: number): GroupField {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw bad(`fields[${index}] must be an object such as {"id":"title","name":"Title","type":"STRING"}`);
  }
  const f = raw as Record<string, unknown>;
  const id = text(f.id, `fields[${index}].id`, { required: true }).trim();
  if (!FIELD_ID.test(id)) {
    throw bad(
      `fields[${index}].id "${clip(id)}" is not usable as an XML element name; use letters, digits, "_", "-" and ".", starting with a letter or "_" (e.g. "date_received")`,
    );
  }
  const where = `Field "${clip(id)}"`;
  const type = fieldType(f.type, `${where}: type`);
  const minOccurs = whole(f.minOccurs, `${where}: minOccurs`, 0);
  const maxOccurs = whole(f.maxOccurs, `${where}: maxOccurs`, 1);
  if (minOccurs < 0) throw bad(`${where}: minOccurs must be 0 or more, got ${minOccurs}`);
  if (maxOccurs !== UNBOUNDED && maxOccurs < 1) {
    throw bad(`${where}: maxOccurs must be 1 or more, or -1 for no limit, got ${maxOccurs}`);
  }
  if (maxOccurs !== UNBOUNDED && minOccurs > maxOccurs) {
    throw bad(`${where}: minOccurs (${minOccurs}) is larger than maxOccurs (${maxOccurs})`);
  }
  const field: GroupField = {
    id,
    name: text(f.name, `${where}: name`, { required: true }),
    type,
    minOccurs,
    maxOccurs,
    visible: flag(f.visible, `${where}: visible`, true),
    editable: flag(f.editable, `${where}: editable`, true),
    defaultValue: text(f.defaultValue, `${where}: defaultValue`, { required: false }),
    indexed: flag(f.indexed, `${where}: indexed`, true),
  };
  if (f.values !== undefined && f.values !== null) {
    if (!Array.isArray(f.values))
      throw bad(`${where}: values must be a list of strings, got ${show(f.values)}`);
    const values = f.values.map((v, i) => text(v, `${where}: values[${i}]`, { required: true }));
    if (values.length > 0) field.values = values;
  }
  const maxLength = whole(f.maxLength, `${where}: maxLength`, UNBOUNDED);
  if (maxLength !== UNBOUNDED) {
    if (maxLength < 1)
      throw bad(`${where}: maxLength must be 1 or more, or -1 for no limit, got ${maxLength}`);
    field.maxLength = maxLength;
  }
  return field;
}

/** Reads a group sent by a client (POST or PUT); the id and schema URI in the body, if any, are ignored. */
export function readGroupInput(body: Record<string, unknown>): GroupInput {
  const name = text(body.name, "The group's name", { required: true }).trim();
  elementNameFor(name); // refuses names no schema URI can be made from
  const description = text(body.description, "The group's description", { required: false });
  const rawFields = body.fields ?? [];
  if (!Array.isArray(rawFields)) {
    throw bad(
      `fields must be a list of field objects, got ${show(rawFields)}; send a group such as ${GROUP_EXAMPLE}`,
    );
  }
  if (rawFields.length > MAX_GROUP_FIELDS) {
    throw bad(
      `The group has ${rawFields.length} fields; a group may have at most ${MAX_GROUP_FIELDS} fields: split them over several groups`,
    );
  }
  const fields = rawFields.map(readField);
  const seen = new Set<string>();
  for (const f of fields) {
    if (seen.has(f.id))
      throw bad(`Two fields have the id "${clip(f.id)}"; field ids must be unique within a group`);
    seen.add(f.id);
  }
  return { name, description, fields };
}

/** What a form is filed under: its title and, when it edits one schema, that schema's URI. */
export interface FormInput {
  title: string;
  schemaUri: string | null;
  /** The whole document as sent (without id), returned as it was stored. */
  definition: Record<string, unknown>;
}

/** Reads a form sent by a client. Forms are kept as sent; only title (and schemaUri) are read. */
export function readFormInput(body: Record<string, unknown>): FormInput {
  const title = text(body.title, "The form's title", { required: true }).trim();
  let schemaUri: string | null = null;
  if (body.schemaUri !== undefined && body.schemaUri !== null && body.schemaUri !== "") {
    schemaUri = text(body.schemaUri, "The form's schemaUri", { required: true }).trim();
  }
  const { id: _ignored, ...definition } = body;
  return { title, schemaUri, definition: { ...definition, title } };
}
