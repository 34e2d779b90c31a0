import type { Body, Case } from "./case.js";
import { CSV_TYPE, E, FORM, JSON_TYPE } from "./wire.js";

/**
 * Metadata CSV edits and the JSON metadata API
 */

const REF_COL = "PRESERVICA_ENTITY_REF";

function csvJunk(): Case[] {
  const path = `${E}/actions/metadata-csv-edits`;
  const header = `${REF_COL},"{groupColumn}"\n`;
  const cases: [string, Body, number[], RegExp?, Record<string, string>?][] = [
    ["empty", "", [400], /CSV is empty/],
    ["only a BOM", "\uFEFF", [400], /CSV is empty/],
    ["only blank lines", "\n\r\n\n", [400], /CSV is empty/],
    ["no header, only a row", "{io},A-1\n", [400], /not a field of any metadata group/],
    ["header and no rows", header, [400], /no rows/],
    ["no reference column", '"{groupColumn}"\nA-1\n', [400], /no PRESERVICA_ENTITY_REF column/],
    ["only the reference column", `${REF_COL}\n{io}\n`, [400], /no metadata group field columns/],
    [
      "unknown column",
      `${REF_COL},"{groupColumn}",nope\n{io},A-1,x\n`,
      [400],
      /not a field of any metadata group: "nope"/,
    ],
    ["a column twice", `${REF_COL},"{groupColumn}","{groupColumn}"\n{io},A-1,A-2\n`, [400], /are the same/],
    ["a quote left open", `${REF_COL},"{groupColumn}\n{io},A-1\n`, [400], /could not be read/],
    ["a quote in an unquoted cell", `${REF_COL},"{groupColumn}"\n{io},A"1\n`, [400], /could not be read/],
    ["NUL in the header", `${REF_COL}\u0000,"{groupColumn}"\n{io},A-1\n`, [400], /NUL/],
    ["NUL in a value", `${header}{io},A\u00001\n`, [400], /NUL/],
    // Not UTF-8: read as ISO-8859-1 (as a spreadsheet's Windows-1252 CSV is meant), so the column is named right.
    [
      "a column in Latin-1",
      { latin1: `${REF_COL},"{groupColumn}",caf\xe9\n{io},A-1,x\n` },
      [400],
      /metadata group: "café"/,
    ],
    [
      "1 MB header cell",
      `${REF_COL},"${"h".repeat(1_000_000)}"\n{io},A-1\n`,
      [400],
      /not a field of any metadata group/,
    ],
    ["2 MiB body", `${header}{io},"${"v".repeat(2 * 1024 * 1024)}"\n`, [413], /1 MiB/],
    ["a form", `${REF_COL}={io}&x=1`, [400], /not a field|no PRESERVICA_ENTITY_REF/, FORM],
    ["JSON", `[{"${REF_COL}":"{io}"}]`, [400], /could not be read|not a field/, JSON_TYPE],
    [
      "a multipart form",
      `--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\n${header}{io},A-1\r\n--xyz--\r\n`,
      [400],
      /not a field|no PRESERVICA_ENTITY_REF|could not be read/,
      { "Content-Type": "multipart/form-data; boundary=xyz" },
    ],
  ];
  const out: Case[] = cases.map(([name, body, status, message, headers]) => ({
    name: `CSV edit: ${name}`,
    method: "POST",
    path,
    headers: headers ?? CSV_TYPE,
    body,
    expect: status,
    message,
  }));
  out.push({
    name: "CSV edit through v6.0: empty",
    method: "POST",
    path: `${E}/v6.0/actions/metadata-csv-edits`,
    headers: CSV_TYPE,
    body: "",
    expect: [400],
  });
  return out;
}

export const CASES: Case[] = csvJunk();
