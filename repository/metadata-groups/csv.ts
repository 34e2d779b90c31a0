import { CsvError, type Options, parse } from "csv-parse/sync";
import { stringify } from "csv-stringify/sync";
import { HTTPException } from "hono/http-exception";
import { elementNameOf, type GroupField, type MetadataGroup } from "./definition.js";

/**
 * Metadata CSV files: the template the service hands out for a set of groups, and the reading of an
 * edit (one row per entity) into a plan the action applies row by row. Parsing is csv-parse's (quoted
 * fields, embedded commas, quotes and line breaks, a BOM); this module only gives the cells meaning.
 *
 * Columns are `PRESERVICA_CSV_TEMPLATE` (a name for people; ignored), `PRESERVICA_ENTITY_REF` (the entity
 * to edit) and one per group field, `<schemaUri>;/ns:<group element>/ns:<field id>` (any prefix).
 */

export const TEMPLATE_COLUMN = "PRESERVICA_CSV_TEMPLATE";
export const REF_COLUMN = "PRESERVICA_ENTITY_REF";
/** The second row of a template: labels for people, skipped when an edit starts with it. */
const LABELS = ["file or folder name", "entity ref"] as const;
/** How many known columns a 400 lists before it points to the template instead. */
const LISTED_COLUMNS = 40;
/** How many unknown columns a 400 names, and how much of each (a header cell may be a megabyte of junk). */
const LISTED_UNKNOWN = 20;
const SHOWN_HEADER = 100;

function clip(text: string): string {
  return text.length > SHOWN_HEADER ? `${text.slice(0, SHOWN_HEADER)}…` : text;
}

/** The column header of a group field. */
export function fieldColumn(group: MetadataGroup, field: GroupField): string {
  const element = elementNameOf(group.schemaUri);
  return `${group.schemaUri};/ns:${element}/ns:${field.id}`;
}

/** A CSV template for the groups: the header row, then a row of labels (field names). */
export function csvTemplate(groups: readonly MetadataGroup[]): string {
  const header: string[] = [TEMPLATE_COLUMN, REF_COLUMN];
  const labels: string[] = [...LABELS];
  for (const g of groups) {
    for (const f of g.fields) {
      header.push(fieldColumn(g, f));
      labels.push(f.name);
    }
  }
  return stringify([header, labels], { quoted: true, record_delimiter: "unix" });
}

/** One group-field column of an edit (the plan is stored with its action, so it stays lean). */
export interface CsvColumn {
  schemaUri: string;
  field: string;
}

/** One row to apply. `values` line up with the plan's columns ("" = leave that field as it is). */
export interface CsvRow {
  /** Row number among the rows to apply, from 1; the action's item number. */
  seq: number;
  /** Line of the file the row ends on (for messages). */
  line: number;
  ref: string;
  values: string[];
  /** Set when the row itself is unusable (too many cells); it is then refused when reached. */
  problem?: string;
}

export interface CsvEditPlan {
  columns: CsvColumn[];
  rows: CsvRow[];
}

function bad(message: string): HTTPException {
  return new HTTPException(400, { message });
}

const EXAMPLE = `"${TEMPLATE_COLUMN}","${REF_COLUMN}","http://www.preservica.com/metadata/group/accession;/ns:accession/ns:accession_number"`;

interface Record_ {
  cells: string[];
  line: number;
}

const PARSE_OPTIONS: Options<Record_, string[]> = {
  bom: true,
  trim: true,
  relax_column_count: true,
  skip_empty_lines: true,
  skip_records_with_empty_values: true,
  on_record: (record, context) => ({ cells: record, line: context.lines }),
};

function readRecords(text: string): Record_[] {
  try {
    // The sync overloads type only string[][] results; on_record makes each record a Record_.
    return parse(text, PARSE_OPTIONS as unknown as Options) as unknown as Record_[];
  } catch (err) {
    if (!(err instanceof CsvError)) throw err;
    throw bad(
      `The CSV could not be read (${err.message}); send comma-separated values, quoting cells that hold commas, quotes or line breaks, with a header row such as ${EXAMPLE}`,
    );
  }
}

/** The header's pieces: `<schemaUri>;/<prefix:>element/<prefix:>field`. */
const FIELD_HEADER = /^([^;]+);\s*\/(?:[^/:]+:)?([^/:]+)\/(?:[^/:]+:)?([^/:]+)$/;

/** Every group field's column, by `schemaUri|element|field id`, with its header. */
function knownColumns(groups: readonly MetadataGroup[]): Map<string, CsvColumn & { header: string }> {
  const known = new Map<string, CsvColumn & { header: string }>();
  for (const g of groups) {
    for (const f of g.fields) {
      const key = `${g.schemaUri}|${elementNameOf(g.schemaUri)}|${f.id}`;
      known.set(key, { header: fieldColumn(g, f), schemaUri: g.schemaUri, field: f.id });
    }
  }
  return known;
}

function unknownColumnsMessage(unknown: string[], known: Map<string, { header: string }>): string {
  const names = unknown
    .slice(0, LISTED_UNKNOWN)
    .map((u) => `"${clip(u)}"`)
    .join(", ");
  const others = unknown.length > LISTED_UNKNOWN ? ` and ${unknown.length - LISTED_UNKNOWN} more` : "";
  const what = `The CSV has ${unknown.length === 1 ? "a column that is" : "columns that are"} not a field of any metadata group: ${names}${others}.`;
  if (known.size === 0) {
    return `${what} No metadata groups exist yet; create one with POST /api/metadata/groups/ and use its fields' columns`;
  }
  const all = [...known.values()].map((c) => `"${c.header}"`);
  const listed = all.slice(0, LISTED_COLUMNS).join(", ");
  const more = all.length > LISTED_COLUMNS ? ` and ${all.length - LISTED_COLUMNS} more` : "";
  return `${what} Besides ${TEMPLATE_COLUMN} and ${REF_COLUMN}, the known columns are: ${listed}${more}. GET /api/metadata/csv-templates/download?ids=<group id> gives a template with the right columns`;
}

/**
 * Reads an edit against the groups that exist. Everything about the file as a whole is checked here
 * (a 400 before anything is changed): it parses, it has a PRESERVICA_ENTITY_REF column, every other
 * column is a known group field, no column repeats, and it has at least one row. What is wrong with a
 * single row (its reference, its values) is found when the row is applied, and refuses that row only.
 */
export function readCsvEdit(text: string, groups: readonly MetadataGroup[]): CsvEditPlan {
  // A NUL is never in a text file: this is a binary file (a spreadsheet, UTF-16) sent as the CSV.
  const nul = text.indexOf("\u0000");
  if (nul >= 0) {
    const line = text.slice(0, nul).split("\n").length;
    throw bad(
      `The CSV holds a NUL character (line ${line}), so it is not a text CSV file (a spreadsheet, or UTF-16 text?); save it as CSV (UTF-8) and send that`,
    );
  }
  const records = readRecords(text);
  const [head, ...body] = records;
  if (!head) throw bad(`The CSV is empty; send a header row such as ${EXAMPLE}, then one row per entity`);
  const header = head.cells.map((h) => h.trim());
  let refCell = -1;
  const columnCells: { cell: number; column: CsvColumn }[] = [];
  const unknown: string[] = [];
  const seen = new Map<string, number>();
  const known = knownColumns(groups);
  header.forEach((h, cell) => {
    const upper = h.toUpperCase();
    if (h === "") {
      if (body.some((r) => (r.cells[cell] ?? "").trim() !== "")) {
        unknown.push(`(column ${cell + 1}, which has no header but has values)`);
      }
      return;
    }
    const key = FIELD_HEADER.exec(h);
    const normal = key ? `${key[1]?.trim()}|${key[2]}|${key[3]}` : upper;
    const again = seen.get(normal);
    if (again !== undefined) {
      throw bad(
        `Columns ${again + 1} and ${cell + 1} of the CSV are the same ("${clip(h)}"); give each column once`,
      );
    }
    seen.set(normal, cell);
    if (upper === REF_COLUMN) refCell = cell;
    else if (upper === TEMPLATE_COLUMN) return;
    else {
      const column = key ? known.get(normal) : undefined;
      if (column) columnCells.push({ cell, column: { schemaUri: column.schemaUri, field: column.field } });
      else unknown.push(h);
    }
  });
  if (unknown.length > 0) throw bad(unknownColumnsMessage(unknown, known));
  if (refCell < 0) {
    throw bad(
      `The CSV has no ${REF_COLUMN} column, so no row says which entity to edit; add that column with each entity's reference, e.g. ${EXAMPLE}`,
    );
  }
  if (columnCells.length === 0) {
    throw bad(
      `The CSV has no metadata group field columns, so there is nothing to apply; add columns such as "http://www.preservica.com/metadata/group/<group>;/ns:<group>/ns:<field id>" (GET /api/metadata/csv-templates/download?ids=<group id> gives a template)`,
    );
  }

  const rows: CsvRow[] = [];
  body.forEach((r, i) => {
    const ref = (r.cells[refCell] ?? "").trim();
    if (i === 0 && ref.toLowerCase() === LABELS[1]) return; // the template's row of labels
    const extra = r.cells.slice(header.length).filter((c) => c.trim() !== "").length;
    const row: CsvRow = {
      seq: rows.length + 1,
      line: r.line,
      ref,
      values: columnCells.map(({ cell }) => (r.cells[cell] ?? "").trim()),
    };
    if (extra > 0) {
      row.problem = `Line ${r.line} has ${r.cells.length} cells but the header has ${header.length} columns; quote cells that contain commas`;
    }
    rows.push(row);
  });
  if (rows.length === 0) {
    throw bad(
      "The CSV has a header but no rows; add one row per entity to edit, with its reference and values",
    );
  }
  return { columns: columnCells.map((c) => c.column), rows };
}
