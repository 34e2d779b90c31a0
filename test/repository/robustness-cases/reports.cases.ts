import type { Body, Case } from "./case.js";
import { BAD_NUMBERS, spread, UNKNOWN_UUID } from "./junk.js";
import { FORM, JSON_TYPE, R } from "./wire.js";

/**
 * Reports (routes/reports.ts): JSON envelopes; a run is an action. Fixture: a finished run of
 * assets-by-format (reportRun).
 */

function reportJunk(): Case[] {
  const cases: Case[] = [];
  for (const p of [
    R,
    `${R}/assets-by-format`,
    `${R}/actions/reports`,
    `${R}/actions/reports?status=completed&report=assets-by-format&username=nobody`,
    `${R}/progress/{reportRun}`,
    `${R}/results/{reportRun}`,
    `${R}/results/{reportRun}?format=CSV`,
  ]) {
    cases.push({ name: `baseline ${p}`, path: p, expect: [200] });
  }
  for (const id of [
    "nope",
    "%00",
    "x".repeat(5000),
    "ASSETS-BY-FORMAT",
    "..%2factions",
    "assets-by-format%20",
  ]) {
    cases.push({
      name: `report ${id.slice(0, 20)}`,
      path: `${R}/${id}`,
      expect: [404],
      message: /No report/,
    });
    cases.push({
      name: `run report ${id.slice(0, 20)}`,
      method: "POST",
      path: `${R}/${id}/run`,
      headers: JSON_TYPE,
      body: "{}",
      expect: [404],
      message: /No report/,
    });
  }
  const run = (id: string) => `${R}/${id}/run`;
  for (const [name, path, headers, body, status, message] of [
    [
      "an unknown parameter",
      run("assets-by-format"),
      JSON_TYPE,
      '{"colour":"red"}',
      [400],
      /unknown parameter/,
    ],
    ["an unknown form parameter", run("assets-by-format"), FORM, "folder={so}", [400], /unknown parameter/],
    ["an unknown query parameter", `${run("retention-summary")}?x=1`, FORM, "", [400], /unknown parameter/],
    ["JSON that is not an object", run("assets-by-format"), JSON_TYPE, "[1,2]", [400]],
    ["JSON that is not JSON", run("assets-by-format"), JSON_TYPE, "{", [400]],
    ["a JSON string", run("assets-by-format"), JSON_TYPE, '"maybe"', [400]],
    [
      "JSON nested 100 deep",
      run("assets-by-format"),
      JSON_TYPE,
      `${'{"a":'.repeat(100)}1${"}".repeat(100)}`,
      [400],
    ],
    ["2 MiB", run("assets-by-format"), JSON_TYPE, `{"x":"${"x".repeat(2 * 1024 * 1024)}"}`, [413], /1 MiB/],
    [
      "a broken multipart body",
      run("assets-by-format"),
      { "Content-Type": "multipart/form-data" },
      "junk",
      [400],
      /multipart/,
    ],
    ...["not-a-uuid", "{so}x", "x".repeat(5000), "%00"].map((v) => [
      `folder ${v.slice(0, 20)}`,
      run("storage-by-folder"),
      JSON_TYPE,
      JSON.stringify({ folder: v }),
      [400],
      /not a folder reference/,
    ]),
    [
      "an unknown folder",
      run("storage-by-folder"),
      JSON_TYPE,
      `{"folder":"${UNKNOWN_UUID}"}`,
      [404],
      /No folder/,
    ],
    ["an asset as the folder", run("fixity-inventory"), JSON_TYPE, '{"folder":"{io}"}', [404], /No folder/],
    ["a folder in the recycle bin", run("fixity-inventory"), FORM, "folder={binned}", [404], /No folder/],
    [
      "a folder the caller cannot read",
      run("storage-by-folder"),
      JSON_TYPE,
      '{"folder":"{hidden}"}',
      [403],
      /may not read/,
    ],
    [
      "a folder twice",
      `${run("storage-by-folder")}?folder={so}`,
      FORM,
      "folder={pendingFolder}",
      [400],
      /different values/,
    ],
    ...["yesterday", "2026-02-30", "2026-13-01", "%00", "1e309"].map((v) => [
      `from ${v}`,
      run("ingest-history"),
      JSON_TYPE,
      JSON.stringify({ from: v }),
      [400],
      /is not a date/,
    ]),
    [
      "from after to",
      run("ingest-history"),
      JSON_TYPE,
      '{"from":"2026-02-01","to":"2026-01-01"}',
      [400],
      /is after/,
    ],
    ...["a b", "x".repeat(101), "%00", "é"].map((v) => [
      `user ${v.slice(0, 20)}`,
      run("changes-by-user"),
      JSON_TYPE,
      JSON.stringify({ user: v }),
      [400],
      /is not a user name/,
    ]),
  ] as [string, string, Record<string, string>, Body, number[], RegExp?][]) {
    cases.push({ name: `report run: ${name}`, method: "POST", path, headers, body, expect: status, message });
  }
  for (const route of ["progress", "results"]) {
    for (const [token, status, message] of [
      ["abc", [400], /is not a progress token/],
      ["x".repeat(5000), [400], /is not a progress token/],
      ["{reportRun}x", [400], /is not a progress token/],
      ["%00", [400], /is not a progress token/],
      [UNKNOWN_UUID, [404], /No report run/],
      ["{done}", [404], /not a report run/],
      ["{check}", [404], /not a report run/],
    ] as const) {
      cases.push({
        name: `report ${route} ${token.slice(0, 20)}`,
        path: `${R}/${route}/${token}`,
        expect: [...status],
        message,
      });
    }
  }
  for (const [q, message] of [
    ["format=xml", /format must be one of/],
    ["format=%00", /format must be one of/],
    [`format=${"x".repeat(5000)}`, /format must be one of/],
    ["format=json&format=csv", /different values/],
  ] as const) {
    cases.push({
      name: `report results ${q.slice(0, 30)}`,
      path: `${R}/results/{reportRun}?${q}`,
      expect: [400],
      message,
    });
  }
  const runs = `${R}/actions/reports`;
  for (const [q, message] of [
    ["status=SOMETIMES", /status must be one of/],
    ["status=%00", /status must be one of/],
    ["report=nope", /report must be one of/],
    [`report=${"x".repeat(5000)}`, /report must be one of/],
    ["status=completed&status=failed", /different values/],
    ["max=0", /at least 1/],
  ] as const) {
    cases.push({ name: `report runs ${q.slice(0, 30)}`, path: `${runs}?${q}`, expect: [400], message });
  }
  for (const param of ["start", "max"]) {
    for (const v of spread(BAD_NUMBERS, param === "start" ? 1 : 2)) {
      cases.push({
        name: `report runs ${param}=${v.slice(0, 20)}`,
        path: `${runs}?${param}=${v}`,
        expect: param === "max" && v === "-1" ? [200] : [400],
      });
    }
  }
  for (const [method, path, message] of [
    ["POST", R, /use GET/],
    ["GET", run("assets-by-format"), /use POST/],
    ["DELETE", `${R}/progress/{reportRun}`, /use GET/],
    ["PUT", `${R}/results/{reportRun}`, /use GET/],
  ] as const) {
    cases.push({ name: `${method} ${path}`, method, path, expect: [405], message });
  }
  cases.push({ name: "reports without a token", path: R, auth: false, expect: [401] });
  cases.push({
    name: "report run without a token",
    method: "POST",
    path: run("assets-by-format"),
    auth: false,
    headers: JSON_TYPE,
    body: "{}",
    expect: [401],
  });
  return cases;
}

export const CASES: Case[] = reportJunk();
