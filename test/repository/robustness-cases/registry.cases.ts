import type { Case, FixtureContext } from "./case.js";

/**
 * Junk for the PAR (registry) API, at both of its mounts, and for authority records
 * (`/api/reference-metadata`). The manager holds the Registry Admin role, so every write case here must be
 * refused for its junk alone: bad JSON, missing or wrong fields, unknown or built-in items, duplicates,
 * missing or wrong credentials.
 */

const UNKNOWN = "00000000-0000-4000-8000-00000000abcd";
const JSON_TYPE = { "Content-Type": "application/json" };
const DEEP = `${"[".repeat(200)}${"]".repeat(200)}`;
const HUGE = "x".repeat(300_000);
const BAD_BASIC = { Authorization: `Basic ${Buffer.from("manager:wrong-password").toString("base64")}` };

function registryCases(P: string): Case[] {
  const post = (
    name: string,
    path: string,
    body: string,
    expect: number[],
    extra: Partial<Case> = {},
  ): Case => ({
    name: `${P} ${name}`,
    method: "POST",
    path: `${P}${path}`,
    headers: JSON_TYPE,
    body,
    expect,
    ...extra,
  });
  const put = (name: string, path: string, body: string, expect: number[]): Case => ({
    name: `${P} ${name}`,
    method: "PUT",
    path: `${P}${path}`,
    headers: JSON_TYPE,
    body,
    expect,
  });
  const del = (name: string, path: string, expect: number[], extra: Partial<Case> = {}): Case => ({
    name: `${P} ${name}`,
    method: "DELETE",
    path: `${P}${path}`,
    expect,
    ...extra,
  });
  return [
    { name: `${P} list tools`, path: `${P}/tools`, expect: [200] },
    { name: `${P} list tools without a token`, path: `${P}/tools`, auth: false, expect: [200] },
    { name: `${P} unknown kind`, path: `${P}/widgets`, expect: [404] },
    { name: `${P} tool by non-guid`, path: `${P}/tools/not-a-guid`, expect: [404] },
    { name: `${P} tool by unknown guid`, path: `${P}/tools/${UNKNOWN}`, expect: [404] },
    { name: `${P} tool by guid`, path: `${P}/tools/{parTool}`, expect: [200] },
    { name: `${P} format by PUID`, path: `${P}/file-formats/fmt/18`, expect: [200] },
    { name: `${P} format by dotted path`, path: `${P}/file-formats/..%2F..%2Fetc`, expect: [404] },
    { name: `${P} format by huge key`, path: `${P}/file-formats/${"f".repeat(5000)}`, expect: [404] },
    {
      name: `${P} business rules filtered by junk headers`,
      path: `${P}/business-rules`,
      headers: { "preservation-action-type": "junk,,%00", "file-format": "x".repeat(2000) },
      expect: [200],
    },
    post("broken JSON", "/tools", "{not json", [400]),
    post("array body", "/tools", "[]", [400]),
    post("deep JSON", "/tools", DEEP, [400]),
    post("toolName a number", "/tools", '{"toolName":5}', [400]),
    post("id a string", "/tools", '{"id":"x","toolName":"a"}', [400]),
    post("id.guid not a GUID", "/tools", '{"id":{"guid":"nope"},"toolName":"a"}', [400]),
    post("huge id.name", "/tools", `{"id":{"name":"${"n".repeat(300)}"},"toolName":"a"}`, [400]),
    post(
      "huge body",
      "/tools",
      `{"toolName":"${HUGE}","x":"${HUGE}","y":"${HUGE}","z":"${HUGE}"}`,
      [400, 413],
    ),
    post("missing required fields", "/preservation-actions", '{"id":{"name":"a"}}', [400]),
    post("existing guid", "/tools", '{"id":{"guid":"{parTool}"},"toolName":"again"}', [409]),
    post("unknown kind", "/widgets", '{"id":{"name":"a"}}', [404]),
    post("no credentials", "/tools", '{"toolName":"a"}', [401], { auth: false }),
    post("wrong Basic credentials", "/tools", '{"toolName":"a"}', [401], {
      auth: false,
      headers: { ...JSON_TYPE, ...BAD_BASIC },
    }),
    post("format without a PUID", "/file-formats", '{"id":{"name":"word"}}', [400]),
    post("format with no name", "/file-formats", '{"name":"Word"}', [400]),
    post("format already present", "/file-formats", '{"id":{"name":"fmt/18"}}', [409]),
    post("rule set with rules not a list", "/rulesets", '{"name":"a","rules":"all"}', [400]),
    post(
      "rule set naming no format",
      "/rulesets",
      `{"name":"a","rules":[{"format":{"name":"fmt/0"},"businessRule":{"guid":"${UNKNOWN}"}}]}`,
      [400],
    ),
    post("rule set with junk rule", "/rulesets", '{"name":"a","rules":[5]}', [400]),
    put("tool with broken JSON", "/tools/{parTool}", "{", [400]),
    put("tool with another guid", "/tools/{parTool}", `{"id":{"guid":"${UNKNOWN}"},"toolName":"a"}`, [400]),
    put("tool without toolName", "/tools/{parTool}", '{"toolVersion":"1"}', [400]),
    put("unknown tool", `/tools/${UNKNOWN}`, '{"toolName":"a"}', [404]),
    put("non-guid tool", "/tools/nope", '{"toolName":"a"}', [404]),
    put("unknown format", "/file-formats/fmt/99999", '{"name":"a"}', [404]),
    put("format renamed to a non-PUID", "/file-formats/fmt/18", '{"id":{"name":"bad"}}', [400]),
    put("format renamed to another's PUID", "/file-formats/fmt/18", '{"id":{"name":"fmt/11"}}', [409]),
    del("unknown tool", `/tools/${UNKNOWN}`, [404]),
    del("non-guid tool", "/tools/nope", [404]),
    del("built-in format", "/file-formats/fmt/18", [409]),
    del("unknown format", "/file-formats/fmt/99999", [404]),
    del("unknown kind", "/widgets/x", [404]),
    del("tool without credentials", "/tools/{parTool}", [401], { auth: false }),
    del("tool with wrong Basic credentials", "/tools/{parTool}", [401], { auth: false, headers: BAD_BASIC }),
  ];
}

const R = "/api/reference-metadata";

function authorityCases(): Case[] {
  const post = (
    name: string,
    path: string,
    body: string,
    expect: number[],
    type = "application/json",
  ): Case => ({
    name: `authority ${name}`,
    method: "POST",
    path: `${R}${path}`,
    headers: { "Content-Type": type },
    body,
    expect,
  });
  return [
    { name: "authority tables", path: `${R}/tables`, expect: [200] },
    { name: "authority tables without a token", path: `${R}/tables`, auth: false, expect: [401] },
    { name: "authority table bad ref", path: `${R}/tables/not-a-ref`, expect: [400] },
    { name: "authority table unknown", path: `${R}/tables/${UNKNOWN}`, expect: [404] },
    { name: "authority table", path: `${R}/tables/{authTable}`, expect: [200] },
    {
      name: "authority records junk expand",
      path: `${R}/tables/{authTable}/records?expand=%00%ff`,
      expect: [200],
    },
    { name: "authority records bad table", path: `${R}/tables/x'--/records`, expect: [400] },
    { name: "authority records unknown table", path: `${R}/tables/${UNKNOWN}/records`, expect: [404] },
    { name: "authority record bad ref", path: `${R}/records/not-a-ref%00`, expect: [400] },
    { name: "authority record unknown", path: `${R}/records/${UNKNOWN}`, expect: [404] },
    { name: "authority record", path: `${R}/records/{authRecord}`, expect: [200] },
    post("table broken JSON", "/tables", "{", [400]),
    post("table array", "/tables", "[1]", [400]),
    post("table deep", "/tables", DEEP, [400]),
    post("table no name", "/tables", '{"securityDescriptor":"open"}', [400]),
    post("table huge name", "/tables", `{"name":"${"n".repeat(1000)}"}`, [400]),
    post("table unknown tag", "/tables", '{"name":"a","securityDescriptor":"nosuch"}', [400]),
    post("table fields not a list", "/tables", '{"name":"a","fields":"x"}', [400]),
    post("table fields without names", "/tables", '{"name":"a","fields":[{}]}', [400]),
    post("table name a number", "/tables", '{"name":5}', [400]),
    { name: "authority delete table bad ref", method: "DELETE", path: `${R}/tables/nope`, expect: [400] },
    {
      name: "authority delete table unknown",
      method: "DELETE",
      path: `${R}/tables/${UNKNOWN}`,
      expect: [404],
    },
    post("record broken JSON", "/tables/{authTable}/records", "{", [400]),
    post("record no fieldValues", "/tables/{authTable}/records", '{"securityDescriptor":"open"}', [400]),
    post("record empty fieldValues", "/tables/{authTable}/records", '{"fieldValues":[]}', [400]),
    post(
      "record object value",
      "/tables/{authTable}/records",
      '{"fieldValues":[{"name":"a","value":{}}]}',
      [400],
    ),
    post("record nameless value", "/tables/{authTable}/records", '{"fieldValues":[{"value":"a"}]}', [400]),
    post(
      "record unknown tag",
      "/tables/{authTable}/records",
      '{"securityDescriptor":"zz","fieldValues":[{"name":"a","value":"b"}]}',
      [400],
    ),
    post(
      "record in unknown table",
      `/tables/${UNKNOWN}/records`,
      '{"fieldValues":[{"name":"a","value":"b"}]}',
      [404],
    ),
    post(
      "record in bad table ref",
      "/tables/zz/records",
      '{"fieldValues":[{"name":"a","value":"b"}]}',
      [400],
    ),
    post("CSV ragged", "/tables/{authTable}/records", "a,b\n1\n", [400], "text/csv"),
    post("CSV header only", "/tables/{authTable}/records", "a,b\n", [400], "text/csv"),
    post("CSV unclosed quote", "/tables/{authTable}/records", 'a\n"x\n', [400], "text/csv"),
    post("CSV duplicate header", "/tables/{authTable}/records", "a,A\n1,2\n", [400], "text/csv"),
    post("CSV blank header", "/tables/{authTable}/records", ",b\n1,2\n", [400], "text/csv"),
    post("CSV binary", "/tables/{authTable}/records", "\u0000\u0001,\u0002\n\u0003", [400], "text/csv"),
    { name: "authority delete record bad ref", method: "DELETE", path: `${R}/records/nope`, expect: [400] },
    {
      name: "authority delete record unknown",
      method: "DELETE",
      path: `${R}/records/${UNKNOWN}`,
      expect: [404],
    },
  ];
}

export const CASES: Case[] = [
  ...registryCases("/Registry/par"),
  ...registryCases("/api/Registry/par"),
  ...authorityCases(),
];

/** A tool added by a registry administrator, an authority table and one of its records. */
export async function fixtures(ctx: FixtureContext): Promise<Record<string, string>> {
  const headers = { "Preservica-Access-Token": ctx.token, "Content-Type": "application/json" };
  const call = async (path: string, body: unknown) => {
    const res = await fetch(`${ctx.url}${path}`, { method: "POST", headers, body: JSON.stringify(body) });
    if (res.status !== 201) throw new Error(`fixture ${path} failed: ${res.status} ${await res.text()}`);
    return (await res.json()) as Record<string, unknown>;
  };
  const tool = await call("/Registry/par/tools", { toolName: "Junk target", toolVersion: "1" });
  const table = await call(`${R}/tables`, { name: "Junk places", securityDescriptor: "open" });
  const record = await call(`${R}/tables/${table.ref}/records`, {
    fieldValues: [{ name: "placename", value: "Nowhere" }],
  });
  return {
    parTool: (tool.id as { guid: string }).guid,
    authTable: String(table.ref),
    authRecord: String(record.ref),
  };
}
