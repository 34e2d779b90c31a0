import type { Case } from "./case.js";
import { type Junk, spread, UNKNOWN_UUID, xmlJunk } from "./junk.js";
import { DELETION, E, ENT7, el, XML_TYPE } from "./wire.js";

/**
 * Export (entity-exports.ts): an <ExportAction> body, refused before any action or file is made; and the
 * package download. Fixture: a finished export of {io} (exportDone).
 */

export const EXPORT_OPTIONS =
  "<IncludeContent>NoContent</IncludeContent><IncludeMetadata>NoMetadata</IncludeMetadata><IncludedGenerations>LatestActive</IncludedGenerations><IncludeParentHierarchy>false</IncludeParentHierarchy>";
export const exportAction = (inner: string) => el("ExportAction", ENT7, inner);

function exportJunk(): Case[] {
  const cases: Case[] = [];
  const paths = [`${E}/information-objects/{io}/exports`, `${E}/structural-objects/{pendingFolder}/exports`];
  const specific: Junk[] = [
    ...(
      [
        ["IncludeContent", "NoContent", ["Maybe", "Content,NoContent", "", "x".repeat(5000)]],
        ["IncludeMetadata", "NoMetadata", ["Some", "Metadata With Events", "%00"]],
        ["IncludedGenerations", "LatestActive", ["Latest", "1", "AllActive " + "x"]],
        ["IncludeParentHierarchy", "false", ["yes", "0", "maybe"]],
      ] as const
    ).flatMap(([name, good, bad]) =>
      bad.map(
        (v): Junk => [
          `${name} ${JSON.stringify(v.slice(0, 20))}`,
          exportAction(EXPORT_OPTIONS.replace(`<${name}>${good}</${name}>`, `<${name}>${v}</${name}>`)),
          [400],
          new RegExp(`${name} must be one of`),
        ],
      ),
    ),
    ["an empty root", `<Wrong xmlns="${ENT7}"/>`, [400], /ExportAction/],
    ["a DeletionAction", el("DeletionAction", ENT7, DELETION), [400], /ExportAction/],
  ];
  for (const [i, path] of paths.entries()) {
    const { always, shared } = xmlJunk("ExportAction", ENT7, EXPORT_OPTIONS);
    for (const [name, body, expectStatus, message] of [
      ...always,
      ...spread(shared, i),
      ...(i === 0 ? specific : []),
    ]) {
      cases.push({
        name: `POST ${path.slice(E.length)}: ${name}`,
        method: "POST",
        path,
        headers: XML_TYPE,
        body,
        expect: expectStatus,
        message,
      });
    }
  }
  const good = exportAction(EXPORT_OPTIONS);
  for (const [name, path, status, message] of [
    ["an asset as a folder", `${E}/structural-objects/{io}/exports`, [404], /not found|information-objects/],
    ["a folder as an asset", `${E}/information-objects/{so}/exports`, [404], /not found|structural-objects/],
    ["a junk ref", `${E}/information-objects/{io}x/exports`, [404], /not a UUID|UUID/],
    ["a 5,000-character ref", `${E}/structural-objects/${"x".repeat(5000)}/exports`, [404], /UUID/],
    ["an unknown folder", `${E}/structural-objects/${UNKNOWN_UUID}/exports`, [404], /not found/],
    ["a folder in the recycle bin", `${E}/structural-objects/{binned}/exports`, [404], /not found/],
    [
      "a folder the caller cannot read",
      `${E}/structural-objects/{hidden}/exports`,
      [403],
      /Read Metadata|READ_METADATA|permission/,
    ],
    // {so} holds {hidden}: the package would leave it out, so the whole export is refused.
    [
      "a folder holding one the caller cannot read",
      `${E}/structural-objects/{so}/exports`,
      [403],
      /\{?[0-9a-f-]{36}/,
    ],
    ["through v6.0, a junk ref", `${E}/v6.0/information-objects/x{io}/exports`, [404], /UUID/],
  ] as [string, string, number[], RegExp][]) {
    cases.push({
      name: `export ${name}`,
      method: "POST",
      path,
      headers: XML_TYPE,
      body: good,
      expect: status,
      message,
    });
  }
  cases.push({
    name: "export through v6.0: wrong root",
    method: "POST",
    path: `${E}/v6.0/information-objects/{io}/exports`,
    headers: XML_TYPE,
    body: el("Wrong", ENT7, EXPORT_OPTIONS),
    expect: [400],
    message: /ExportAction/,
  });

  // The package download.
  const content = (token: string) => `${E}/actions/exports/${token}/content`;
  cases.push({ name: "baseline export package", path: content("{exportDone}"), expect: [200] });
  cases.push({ name: "HEAD export package", method: "HEAD", path: content("{exportDone}"), expect: [200] });
  cases.push({
    name: "export package through v6.0",
    path: `${E}/v6.0/actions/exports/{exportDone}/content`,
    expect: [200],
  });
  for (const [token, status, message] of [
    ["not-a-uuid", [404], /UUID|token/],
    ["%00", [404], /UUID|token/],
    ["{exportDone}x", [404], /UUID|token/],
    ["x".repeat(5000), [404], /UUID|token/],
    ["..%2f..%2fetc%2fpasswd", [404], /UUID|token/],
    [UNKNOWN_UUID, [404], /No export/],
    ["{done}", [404], /No export/],
    ["{pending}", [404], /No export/],
    ["{check}", [404], /No export/],
  ] as const) {
    cases.push({
      name: `export package ${token.slice(0, 20)}`,
      path: content(token),
      expect: [...status],
      message,
    });
  }
  cases.push({
    name: "export package with a Range",
    path: content("{exportDone}"),
    headers: { Range: "bytes=0-9" },
    expect: [200],
  });
  for (const [method, message] of [
    ["POST", /use GET/],
    ["DELETE", /use GET/],
  ] as const) {
    cases.push({
      name: `${method} export package`,
      method,
      path: content("{exportDone}"),
      expect: [405],
      message,
    });
  }
  cases.push({
    name: "GET exports of an asset",
    path: `${E}/information-objects/{io}/exports`,
    expect: [405],
    message: /use POST/,
  });
  return cases;
}

export const CASES: Case[] = exportJunk();
