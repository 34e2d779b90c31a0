import { expect } from "vitest";
import type { Body, Case, Reply } from "./case.js";
import { fill } from "./client.js";
import {
  BAD_DATES,
  BAD_NUMBERS,
  type Junk,
  spread,
  TWO_MIB,
  UNKNOWN_UUID,
  type XmlRoute,
  xmlJunk,
} from "./junk.js";
import { withParam } from "./read-routes.js";
import { APPROVAL, ENT7, el, FORM, JSON_TYPE, multipart, WF, WF_NS, XML_TYPE } from "./wire.js";

/**
 * Operations APIs: the Workflow API (XML in WF_NS; errors are the service's JSON, as everywhere), the
 * Process API's ingest configurations (bare JSON) and the Process Monitor (JSON envelopes). Fixtures: the
 * deletions' instance ids (pendingSeq: a human task awaiting its decision, which no junk may decide;
 * doneSeq: finished), a finished Integrity Check (check, checkSeq), an uploaded definition (definition)
 * with its context (uploadedContext, which cannot start here) and a folder whose tag the manager cannot
 * read (hidden).
 */

const CONFIGS = "/api/process/ingest/configs";
const PM = "/api/processmonitor";
/** The ingest configurations every store starts with: the active one (package upload) and the other. */
const CONFIG_ON = "6d1f0a52-3c1b-4a8e-9f10-2b7c5e0d4a01";
const CONFIG_OFF = "6d1f0a52-3c1b-4a8e-9f10-2b7c5e0d4a02";
const INTEGRITY_CHECK = "<WorkflowContextId>11</WorkflowContextId>";
const folderParam = (value: string) => `<Parameter><Key>folder</Key><Value>${value}</Value></Parameter>`;
export const startRequest = (inner: string) => el("StartWorkflowRequest", WF_NS, inner);
/** A start the service would take (an Integrity Check of an empty folder) but for the junk around it. */
export const START = `${INTEGRITY_CHECK}<WorkflowContextName>Integrity Check</WorkflowContextName>${folderParam("{pendingFolder}")}`;
const NEW_CONTEXT = `<Name>Junk new context</Name><WorkflowDefinitionId>11</WorkflowDefinitionId>${folderParam("{pendingFolder}")}`;
const NEW_DEFINITION =
  "<TextId>org.example.junk.new</TextId><Name>Junk new</Name><Type>DataManagement</Type>";
const RESULT = "<Outcome>reject</Outcome><Comment>junk</Comment>";

/** Values of an enumerated parameter (type, state, status, category) that are none of its values. */
const BAD_ENUMS = ["Nope", "%00", "x".repeat(5000), "Active%00", "Ingest,Access", "%C3%28"];

/**
 * Where a reply of the operations APIs has a shape of its own: Workflow API documents in their
 * namespace, Process Monitor JSON in its envelope (its progress document is the Entity API's XML).
 */
function checkOperationsReply(c: Case, r: Reply): void {
  if (r.status >= 300 || (c.method ?? "GET") === "HEAD") return;
  const path = fill(c.path);
  const text = r.body.toString("utf8");
  const type = String(r.headers["content-type"] ?? "");
  if (path.startsWith(`${WF}/`) && !path.endsWith("/document")) {
    expect(type, c.name).toMatch(/^application\/xml/);
    expect(text, c.name).toMatch(new RegExp(`^(?:<\\?xml[^>]*\\?>\\s*)?<\\w+ xmlns="${WF_NS}"`));
  }
  if (path.startsWith(`${PM}/`) && !path.startsWith(`${PM}/progress/`)) {
    const body = JSON.parse(text) as { success?: unknown; version?: unknown; value?: unknown };
    expect([body.success, body.version, typeof body.value], c.name).toEqual([true, 1, "object"]);
  }
}

function operationsReads(): Case[] {
  const cases: Case[] = [];
  const baselines = [
    `${WF}/definitions`,
    `${WF}/definitions?type=dataManagement`,
    `${WF}/definitions/11`,
    `${WF}/definitions/com.preservica.core.workflow.integrity.check`,
    `${WF}/definitions/{definition}/document`,
    `${WF}/contexts`,
    `${WF}/contexts?workflowDefinitionId=org.example.unknown`,
    `${WF}/contexts?workflowDefinitionId=11&type=DataManagement`,
    `${WF}/contexts/11`,
    `${WF}/contexts/{uploadedContext}`,
    `${WF}/instances`,
    `${WF}/instances?state=pending&type=DataManagement&contextId=5&creator=%00`,
    // The date form clients send, with the + encoded and as it arrives unencoded (a space).
    `${WF}/instances?from=2026-11-22T21:08:37.000000%2B0000`,
    `${WF}/instances?from=2000-11-22T21:08:37.000000+0000&to=2999-01-01`,
    `${WF}/instances?max=5&max=5&start=99999999`,
    `${WF}/instances/{checkSeq}?includeErrors=true&includeParameters=true`,
    `${WF}/instances/{check}?includeErrors=maybe`,
    `${WF}/humantasks`,
    `${WF}/humantasks/{pendingSeq}`,
    CONFIGS,
    `${CONFIGS}?types=opex,nope&types=%00`,
    `${CONFIGS}/${CONFIG_ON}`,
    `${PM}/monitors`,
    `${PM}/monitors?includeAbandoned=maybe&subcategory=%00&status=running`,
    `${PM}/monitors/{check}`,
    `${PM}/monitors/{checkSeq}/timeseries`,
    `${PM}/messages?monitor={check}`,
    // pyPreservica re-sends monitor and status on the next link: the same value twice is one value.
    `${PM}/messages?monitor={check}&status=Info&monitor={check}&status=Info`,
    `${PM}/history`,
    `${PM}/history?from=2026-11-22T21:08:37.000000+0000&to=2026-11-23&category=ingest`,
    `${PM}/progress/{check}`,
  ];
  for (const p of baselines) cases.push({ name: `baseline ${p}`, path: p, expect: [200] });
  for (const p of baselines.filter((_, i) => i % 4 === 0))
    cases.push({ name: `HEAD ${p}`, method: "HEAD", path: p, expect: [200] });

  // Ids in the path: non-numeric, negative, huge, unknown, a UUID where a number is expected and the
  // other way round.
  const ids: [string, string[], number[], RegExp][] = [
    [
      `${WF}/definitions/`,
      ["0", "-1", "1.5", "9".repeat(400), "%00", "%C3%28", UNKNOWN_UUID, "99999", "org.example.unknown"],
      [404],
      /No workflow definition/,
    ],
    [
      `${WF}/contexts/`,
      ["abc", "-1", "0", "1.5", "1e3", "0x10", "%00", UNKNOWN_UUID],
      [400],
      /positive whole/,
    ],
    [`${WF}/contexts/`, ["9".repeat(400), "9999999999999", "%C3%28", "11%2012"], [400], /positive whole/],
    [`${WF}/contexts/`, ["99999"], [404], /No workflow context/],
    [
      `${WF}/instances/`,
      ["abc", "-1", "0", "1.5", "9".repeat(400), "%00", "{check}x"],
      [400],
      /positive whole/,
    ],
    [`${WF}/instances/`, [UNKNOWN_UUID, "99999"], [404], /No workflow instance/],
    [`${WF}/humantasks/`, ["0", "9".repeat(30)], [400], /positive whole/],
    [`${WF}/humantasks/`, ["99999"], [404], /No workflow instance/],
    [`${WF}/humantasks/`, ["{checkSeq}"], [404], /has no human task/],
    [`${WF}/humantasks/`, ["{doneSeq}"], [409], /no longer awaiting/],
    [`${WF}/humantasks/`, ["abc", "-1", "{pending}", "1.5"], [404], /humantask|Workflow/],
    [
      `${PM}/monitors/`,
      ["abc", "-1", "0", "9".repeat(400), "%00", UNKNOWN_UUID, "99999", "{check}x", "{checkSeq}.0"],
      [404],
      /No process monitor/,
    ],
    [
      `${PM}/progress/`,
      ["abc", "123", "{checkSeq}", UNKNOWN_UUID, "%00", "x".repeat(5000), "{check}x"],
      [404],
      /No process with progress token/,
    ],
    [`${CONFIGS}/`, ["abc", "%00", UNKNOWN_UUID, "1", "x".repeat(5000)], [404], /No ingest configuration/],
  ];
  for (const [prefix, values, status, message] of ids) {
    for (const v of values) {
      cases.push({
        name: `${prefix.slice(0, -1)} id ${v.slice(0, 20)}`,
        path: prefix + v,
        expect: status,
        message,
      });
    }
  }
  for (const v of ["0", UNKNOWN_UUID, "org.example.unknown", "x".repeat(3000)]) {
    cases.push({
      name: `definition document ${v.slice(0, 20)}`,
      path: `${WF}/definitions/${v}/document`,
      expect: [404],
      message: /No workflow definition/,
    });
  }
  cases.push({
    name: "document of a built-in definition",
    path: `${WF}/definitions/11/document`,
    expect: [404],
    message: /built into this service/,
  });
  for (const v of ["abc", "0", UNKNOWN_UUID, "{checkSeq}x"]) {
    cases.push({
      name: `timeseries of ${v}`,
      path: `${PM}/monitors/${v}/timeseries`,
      expect: [404],
      message: /No process monitor/,
    });
  }
  for (const [q, status, message] of [
    ["", [400], /monitor is required/],
    ["?monitor=", [400], /monitor is required/],
    ["?monitor=%20", [400], /monitor is required/],
    ["?status=Info", [400], /monitor is required/],
    ["?monitor=abc", [404], /No process monitor/],
    [`?monitor=${UNKNOWN_UUID}`, [404], /No process monitor/],
    ["?monitor={check}&monitor={checkSeq}", [400], /different values/],
    ["?monitor={check}&monitor=x", [400], /different values/],
  ] as const) {
    cases.push({ name: `messages${q}`, path: `${PM}/messages${q}`, expect: [...status], message });
  }

  // Paging: start/max junk (max=-1 is "all", as everywhere), max=0 refused (clients advancing by the
  // count would loop), a parameter given twice with different values.
  const paged = [`${WF}/instances`, `${WF}/humantasks`, `${PM}/monitors`, `${PM}/messages?monitor={check}`];
  for (const [i, p] of paged.entries()) {
    for (const param of ["start", "max"]) {
      for (const v of spread(BAD_NUMBERS, i)) {
        cases.push({
          name: `${param}=${v.slice(0, 20)} on ${p}`,
          path: withParam(p, `${param}=${v}`),
          expect: param === "max" && v === "-1" ? [200] : [400],
        });
      }
    }
    cases.push({ name: `max=0 on ${p}`, path: withParam(p, "max=0"), expect: [400], message: /at least 1/ });
    cases.push({
      name: `max=00 on ${p}`,
      path: withParam(p, "max=00"),
      expect: [400],
      message: /at least 1/,
    });
    cases.push({
      name: `start twice on ${p}`,
      path: withParam(p, "start=0&start=1"),
      expect: [400],
      message: /different values/,
    });
    cases.push({
      name: `max twice on ${p}`,
      path: withParam(p, "max=1&max=-1"),
      expect: [400],
      message: /different values/,
    });
  }

  // Dates: from/to of instances and of the history.
  for (const [i, d] of [
    ...BAD_DATES,
    "2026-02-30",
    "2026-04-31T00:00:00Z",
    "2026-11-22T21:08:37.000000+2400",
  ].entries()) {
    for (const [route, message] of [
      [`${WF}/instances`, /ISO 8601/],
      [`${PM}/history`, /must be a date/],
    ] as const) {
      const param = i % 2 === 0 ? "from" : "to";
      cases.push({ name: `${route} ${param}=${d}`, path: `${route}?${param}=${d}`, expect: [400], message });
    }
  }
  for (const [q, message] of [
    ["from=2026-01-02&to=2026-01-01", /is after/],
    ["from=2020-01-01&to=2026-01-01", /At most 366 days/],
    ["from=0000-01-01", /At most 366 days/],
    ["to=2026-01-01&to=2026-01-02", /different values/],
    ["from=2026-01-01&from=2026-01-01T00:00:00Z", /different values/],
  ] as const) {
    cases.push({ name: `history ${q}`, path: `${PM}/history?${q}`, expect: [400], message });
  }
  cases.push({
    name: "instances from twice",
    path: `${WF}/instances?from=2026-01-01&from=2026-01-02`,
    expect: [400],
    message: /different values/,
  });

  // Unknown types, states, categories and statuses; contextId junk; an enum given twice.
  const enums = [
    `${WF}/definitions?type=`,
    `${WF}/contexts?type=`,
    `${WF}/instances?type=`,
    `${WF}/instances?state=`,
    `${PM}/monitors?status=`,
    `${PM}/monitors?category=`,
    `${PM}/messages?monitor={check}&status=`,
    `${PM}/history?category=`,
  ];
  for (const p of enums) {
    for (const v of BAD_ENUMS) {
      cases.push({ name: `${p}${v.slice(0, 20)}`, path: p + v, expect: [400], message: /must be one of/ });
    }
  }
  for (const [p, q] of [
    [`${WF}/instances`, "type=Ingest&type=Access"],
    [`${WF}/instances`, "state=Active&state=Completed"],
    [`${WF}/definitions`, "type=Ingest&type=ingest"],
    [`${PM}/monitors`, "status=Running&status=Failed"],
    [`${PM}/monitors`, "category=Ingest&category=Export"],
    [`${PM}/history`, "category=Ingest&category=Export"],
  ]) {
    cases.push({ name: `${p} ${q}`, path: `${p}?${q}`, expect: [400], message: /different values/ });
  }
  for (const v of ["abc", "-1", "0", "1.5", UNKNOWN_UUID, "9".repeat(400)]) {
    cases.push({
      name: `instances contextId=${v.slice(0, 20)}`,
      path: `${WF}/instances?contextId=${v}`,
      expect: [400],
      message: /contextId/,
    });
  }
  return cases;
}

/** XML bodies to POST: the generic junk around a body the route would take, then the route's own. */
function operationsXml(): Case[] {
  const cases: Case[] = [];
  const routes: XmlRoute[] = [
    {
      method: "POST",
      path: `${WF}/instances`,
      root: "StartWorkflowRequest",
      ns: WF_NS,
      inner: START,
      specific: [
        ["no context named", startRequest(folderParam("{pendingFolder}")), [400], /Name the context/],
        [
          "empty WorkflowContextId",
          startRequest(`<WorkflowContextId> </WorkflowContextId>${folderParam("{pendingFolder}")}`),
          [400],
          /Name the context/,
        ],
        ...["abc", "-1", "0", "1.5", "9".repeat(400), UNKNOWN_UUID, "11 12", "0x0B"].map(
          (v): Junk => [
            `WorkflowContextId ${v.slice(0, 20)}`,
            startRequest(`<WorkflowContextId>${v}</WorkflowContextId>${folderParam("{pendingFolder}")}`),
            [400],
            /WorkflowContextId must be a positive whole number/,
          ],
        ),
        [
          "unknown WorkflowContextId",
          startRequest(`<WorkflowContextId>99999</WorkflowContextId>${folderParam("{pendingFolder}")}`),
          [404],
          /No workflow context with id 99999/,
        ],
        [
          "unknown WorkflowContextName",
          startRequest(`<WorkflowContextName>Nope</WorkflowContextName>${folderParam("{pendingFolder}")}`),
          [404],
          /No workflow context named "Nope"/,
        ],
        [
          "Id and Name of different contexts",
          startRequest(
            `${INTEGRITY_CHECK}<WorkflowContextName>Move</WorkflowContextName>${folderParam("{pendingFolder}")}`,
          ),
          [400],
          /not "Move"/,
        ],
        [
          "a Name of 5,000 characters",
          startRequest(
            `${INTEGRITY_CHECK}<WorkflowContextName>${"n".repeat(5000)}</WorkflowContextName>${folderParam("{pendingFolder}")}`,
          ),
          [400],
          /WorkflowContextId 11 is the context/,
        ],
        ...[
          ["the Move context", "<WorkflowContextId>3</WorkflowContextId>", /PUT .*parent-ref/],
          [
            "the Ingest context by name",
            "<WorkflowContextName>Ingest</WorkflowContextName>",
            /cannot be started here/,
          ],
          ["the catch-all context", "<WorkflowContextId>12</WorkflowContextId>", /cannot be started here/],
          [
            "an uploaded definition's context",
            "<WorkflowContextId>{uploadedContext}</WorkflowContextId>",
            /no engine/,
          ],
        ].map(
          ([name, ctx, message]): Junk => [
            `${name}, not startable`,
            startRequest(`${ctx}${folderParam("{pendingFolder}")}`),
            [422],
            message as RegExp,
          ],
        ),
        ["an Integrity Check without folder", startRequest(INTEGRITY_CHECK), [400], /needs the folder/],
        ["folder empty", startRequest(`${INTEGRITY_CHECK}${folderParam("")}`), [400], /needs the folder/],
        ["folder blank", startRequest(`${INTEGRITY_CHECK}${folderParam(" \t ")}`), [400], /needs the folder/],
        [
          "folder as a self-closing Value",
          startRequest(`${INTEGRITY_CHECK}<Parameter><Key>folder</Key><Value/></Parameter>`),
          [400],
          /needs the folder/,
        ],
        [
          "folder without Value",
          startRequest(`${INTEGRITY_CHECK}<Parameter><Key>folder</Key></Parameter>`),
          [400],
          /needs the folder/,
        ],
        ...[
          "not-a-uuid",
          "../../etc/passwd",
          "x".repeat(5000),
          "@ROOT@",
          "{so}{so}",
          `${UNKNOWN_UUID}x`,
          "sdb:SO|{so}",
        ].map(
          (v): Junk => [
            `folder ${v.slice(0, 20)}`,
            startRequest(`${INTEGRITY_CHECK}${folderParam(v)}`),
            [400],
            /is not a folder reference/,
          ],
        ),
        [
          "folder an asset",
          startRequest(`${INTEGRITY_CHECK}${folderParam("{io}")}`),
          [400],
          /is not a folder \(it is an asset/,
        ],
        [
          "folder a content object",
          startRequest(`${INTEGRITY_CHECK}${folderParam("{co}")}`),
          [400],
          /is not a folder \(it is a content object/,
        ],
        [
          "folder unknown",
          startRequest(`${INTEGRITY_CHECK}${folderParam(UNKNOWN_UUID)}`),
          [404],
          /not found/,
        ],
        [
          "folder in the recycle bin",
          startRequest(`${INTEGRITY_CHECK}${folderParam("{binned}")}`),
          [404],
          /not found/,
        ],
        [
          "a folder the caller cannot read",
          startRequest(`${INTEGRITY_CHECK}${folderParam("{hidden}")}`),
          [403],
          /lacks the Read Metadata permission on security tag "junk-hidden"/,
        ],
        [
          "an unknown parameter",
          startRequest(`${START}<Parameter><Key>colour</Key><Value>red</Value></Parameter>`),
          [400],
          /does not know "colour"/,
        ],
        [
          "a Parameter without Key",
          startRequest(`${START}<Parameter><Value>red</Value></Parameter>`),
          [400],
          /needs a Key/,
        ],
        ["folder twice", startRequest(`${START}${folderParam("{so}")}`), [400], /folder is given twice/],
        [
          "101 parameters",
          startRequest(
            `${START}${Array.from({ length: 100 }, (_, i) => `<Parameter><Key>p${i}</Key><Value>v</Value></Parameter>`).join("")}`,
          ),
          [400],
          /At most 100 parameters/,
        ],
        [
          "a CorrelationId of 201 characters",
          startRequest(`${START}<CorrelationId>${"c".repeat(201)}</CorrelationId>`),
          [400],
          /CorrelationId is longer than 200/,
        ],
        ["no namespace", `<StartWorkflowRequest>${START}</StartWorkflowRequest>`, [400], /namespace/],
        [
          "another namespace",
          el("StartWorkflowRequest", "http://workflow.example.com", START),
          [400],
          /workflow\.example\.com/,
        ],
      ],
    },
    {
      method: "POST",
      path: `${WF}/contexts`,
      root: "WorkflowContext",
      ns: WF_NS,
      inner: NEW_CONTEXT,
      specific: [
        [
          "no Name",
          el("WorkflowContext", WF_NS, "<WorkflowDefinitionId>11</WorkflowDefinitionId>"),
          [400],
          /needs a Name and a WorkflowDefinitionId/,
        ],
        [
          "no definition",
          el("WorkflowContext", WF_NS, "<Name>Junk new context</Name>"),
          [400],
          /needs a Name/,
        ],
        [
          "a Name of 201 characters",
          el("WorkflowContext", WF_NS, NEW_CONTEXT.replace("Junk new context", "n".repeat(201))),
          [400],
          /longer than 200/,
        ],
        ...["org.example.unknown", "0", "-1", "99999", "%00", "x".repeat(5000)].map(
          (v): Junk => [
            `definition ${v.slice(0, 20)}`,
            el("WorkflowContext", WF_NS, NEW_CONTEXT.replace(">11<", `>${v}<`)),
            [404],
            /No workflow definition/,
          ],
        ),
        [
          "the name of a built-in context",
          el("WorkflowContext", WF_NS, NEW_CONTEXT.replace("Junk new context", "Move")),
          [409],
          /already exists/,
        ],
        [
          "the name of an uploaded context",
          el("WorkflowContext", WF_NS, NEW_CONTEXT.replace("Junk new context", "Junk uploaded context")),
          [409],
          /already exists/,
        ],
        [
          "a default folder that is not a UUID",
          el("WorkflowContext", WF_NS, NEW_CONTEXT.replace("{pendingFolder}", "not-a-uuid")),
          [400],
          /not a folder reference/,
        ],
        [
          "a default folder unknown",
          el("WorkflowContext", WF_NS, NEW_CONTEXT.replace("{pendingFolder}", UNKNOWN_UUID)),
          [404],
          /not found/,
        ],
        [
          "a default folder the caller cannot read",
          el("WorkflowContext", WF_NS, NEW_CONTEXT.replace("{pendingFolder}", "{hidden}")),
          [403],
          /lacks the Read Metadata permission/,
        ],
        [
          "a default folder that is an asset",
          el("WorkflowContext", WF_NS, NEW_CONTEXT.replace("{pendingFolder}", "{io}")),
          [400],
          /not a folder/,
        ],
        [
          "an unknown default parameter",
          el(
            "WorkflowContext",
            WF_NS,
            `${NEW_CONTEXT}<Parameter><Key>colour</Key><Value>red</Value></Parameter>`,
          ),
          [400],
          /does not know "colour"/,
        ],
        [
          "a default Parameter without Key",
          el("WorkflowContext", WF_NS, `${NEW_CONTEXT}<Parameter><Value>x</Value></Parameter>`),
          [400],
          /needs a Key/,
        ],
        [
          "a default parameter twice",
          el("WorkflowContext", WF_NS, `${NEW_CONTEXT}${folderParam("{so}")}`),
          [400],
          /given twice/,
        ],
        ["no namespace", `<WorkflowContext>${NEW_CONTEXT}</WorkflowContext>`, [400], /namespace/],
      ],
    },
    {
      method: "POST",
      path: `${WF}/humantasks/{pendingSeq}/result`,
      root: "HumanTaskResult",
      ns: WF_NS,
      inner: RESULT,
      specific: [
        [
          "no Outcome",
          el("HumanTaskResult", WF_NS, "<Comment>junk</Comment>"),
          [400],
          /Outcome must be approve or reject/,
        ],
        ...["", "maybe", "approved", "yes", "true", "approve reject", "approve,reject", "x".repeat(5000)].map(
          (v): Junk => [
            `Outcome ${JSON.stringify(v.slice(0, 20))}`,
            el("HumanTaskResult", WF_NS, `<Outcome>${v}</Outcome><Comment>junk</Comment>`),
            [400],
            /Outcome must be approve or reject/,
          ],
        ),
        [
          "Outcome as an attribute",
          `<HumanTaskResult xmlns="${WF_NS}" Outcome="reject"><Comment>junk</Comment></HumanTaskResult>`,
          [400],
          /Outcome must be/,
        ],
        [
          "Outcome nested deeper",
          el("HumanTaskResult", WF_NS, "<Result><Outcome>reject</Outcome></Result>"),
          [400],
          /Outcome must be/,
        ],
        [
          "a 2 MiB Comment",
          el(
            "HumanTaskResult",
            WF_NS,
            `<Outcome>reject</Outcome><Comment>${"c".repeat(2 * 1024 * 1024)}</Comment>`,
          ),
          [413],
          /1 MiB/,
        ],
        ["no namespace", `<HumanTaskResult>${RESULT}</HumanTaskResult>`, [400], /namespace/],
        ["the Entity API's approval", el("DeletionAction", ENT7, APPROVAL), [400], /HumanTaskResult/],
      ],
    },
  ];
  for (const [i, r] of routes.entries()) {
    const { always, shared } = xmlJunk(r.root, r.ns, r.inner);
    // Every generic junk goes to the start of a workflow (it would start one); a rotating share to the rest.
    const generic = i === 0 ? shared : spread(shared, i);
    for (const [name, body, expectStatus, message] of [...always, ...generic, ...r.specific]) {
      cases.push({
        name: `${r.method} ${r.path}: ${name}`,
        method: r.method,
        path: r.path,
        headers: XML_TYPE,
        body,
        expect: expectStatus,
        message,
      });
    }
    const typed: [string, Record<string, string>, Body][] = [
      ["JSON", JSON_TYPE, `{"${r.root}":{"WorkflowContextId":11}}`],
      ["a form", FORM, "WorkflowContextId=11&folder={pendingFolder}"],
      [
        "multipart",
        { "Content-Type": "multipart/form-data; boundary=xyz" },
        multipart(Buffer.from(el(r.root, r.ns, r.inner))),
      ],
    ];
    for (const [kind, headers, body] of typed) {
      cases.push({
        name: `${r.method} ${r.path}: ${kind} under its own Content-Type`,
        method: r.method,
        path: r.path,
        headers,
        body,
        expect: [400],
      });
    }
  }

  // A human task result for tasks that are not there, with a body that would decide one.
  const result = el("HumanTaskResult", WF_NS, RESULT);
  for (const [id, status, message] of [
    ["{doneSeq}", [409], /no longer awaiting a decision/],
    ["{checkSeq}", [404], /has no human task/],
    ["0", [400], /positive whole number/],
    ["9".repeat(30), [400], /positive whole number/],
    ["99999", [404], /No workflow instance/],
    ["abc", [404], /humantask|Workflow/],
    ["{pending}", [404], /humantask|Workflow/],
    ["-1", [404], /humantask|Workflow/],
  ] as const) {
    cases.push({
      name: `human task result for ${id.slice(0, 20)}`,
      method: "POST",
      path: `${WF}/humantasks/${id}/result`,
      headers: XML_TYPE,
      body: result,
      expect: [...status],
      message,
    });
  }

  // Definition uploads: any root element, with an id, name and type. The generic junk that only
  // swaps the root would be a good upload here, so it is left out.
  const definition = el("WorkflowDefinition", WF_NS, NEW_DEFINITION);
  const { always, shared } = xmlJunk("WorkflowDefinition", WF_NS, NEW_DEFINITION);
  const defJunk: Junk[] = [
    ...[...always, ...shared].filter(([name]) => !/wrong root/.test(name) || name.startsWith("900 KB")),
    ["an empty root", `<WorkflowDefinition xmlns="${WF_NS}"/>`, [400], /needs an id, a name, a type/],
    [
      "no id",
      el("WorkflowDefinition", WF_NS, "<Name>Junk</Name><Type>DataManagement</Type>"),
      [400],
      /needs an id/,
    ],
    [
      "no name",
      el("WorkflowDefinition", WF_NS, "<TextId>org.example.junk.new</TextId><Type>Access</Type>"),
      [400],
      /needs a name/,
    ],
    [
      "no type",
      el("WorkflowDefinition", WF_NS, "<TextId>org.example.junk.new</TextId><Name>J</Name>"),
      [400],
      /needs a type/,
    ],
    ...["1abc", "org example", "a/b", "../x", "x".repeat(201), "é.x", "-x", "a\u00a0b"].map(
      (v): Junk => [
        `id ${JSON.stringify(v.slice(0, 20))}`,
        el("WorkflowDefinition", WF_NS, NEW_DEFINITION.replace("org.example.junk.new", v)),
        [400],
        /must start with a letter/,
      ],
    ),
    [
      "a junk id attribute over a good TextId",
      `<WorkflowDefinition xmlns="${WF_NS}" id="1 x">${NEW_DEFINITION}</WorkflowDefinition>`,
      [400],
      /must start with a letter/,
    ],
    [
      "a name of 201 characters",
      el("WorkflowDefinition", WF_NS, NEW_DEFINITION.replace("Junk new", "n".repeat(201))),
      [400],
      /longer than 200/,
    ],
    ...["Nope", "Data Management", "x".repeat(5000)].map(
      (v): Junk => [
        `type ${v.slice(0, 20)}`,
        el("WorkflowDefinition", WF_NS, NEW_DEFINITION.replace(">DataManagement<", `>${v}<`)),
        [400],
        /must be one of/,
      ],
    ),
    [
      "a built-in definition's id",
      el(
        "WorkflowDefinition",
        WF_NS,
        NEW_DEFINITION.replace("org.example.junk.new", "com.preservica.core.workflow.integrity.check"),
      ),
      [409],
      /already exists/,
    ],
    [
      "an uploaded definition's id",
      el(
        "WorkflowDefinition",
        WF_NS,
        NEW_DEFINITION.replace("org.example.junk.new", "org.example.junk.fixture"),
      ),
      [409],
      /already exists/,
    ],
    [
      "1 MiB and one byte",
      `${definition}${" ".repeat(1024 * 1024 + 1 - Buffer.byteLength(definition))}`,
      [413],
      /1 MiB/,
    ],
  ];
  for (const [name, body, expectStatus, message] of defJunk) {
    cases.push({
      name: `POST ${WF}/definitions: ${name}`,
      method: "POST",
      path: `${WF}/definitions`,
      headers: XML_TYPE,
      body,
      expect: expectStatus,
      message,
    });
  }
  return cases;
}

/** Terminate, stop and resume: junk lists of ids (every id is checked before any instance changes). */
function operationsChanges(): Case[] {
  const cases: Case[] = [];
  const lists: [string, string, number[], RegExp?][] = [
    ["none", "", [400], /Name the instances/],
    ["empty", "?workflowInstanceIds=", [400], /Name the instances/],
    ["a comma", "?workflowInstanceIds=,", [400], /Name the instances|empty/],
    ["blank", "?workflowInstanceIds=%20", [400], /Name the instances/],
    ["an empty id between two", "?workflowInstanceIds={pendingSeq},,{doneSeq}", [400], /empty/],
    ["a trailing comma", "?workflowInstanceIds={pendingSeq},", [400], /empty/],
    ["letters after a good id", "?workflowInstanceIds={pendingSeq},x", [400], /positive whole number/],
    ["letters", "?workflowInstanceIds=a,b", [400], /positive whole number/],
    ["a UUID", "?workflowInstanceIds={pending}", [400], /positive whole number/],
    ["a decimal", "?workflowInstanceIds={pendingSeq}.0", [400], /positive whole number/],
    ["negative", "?workflowInstanceIds=-{pendingSeq}", [400], /positive whole number/],
    ["zero", "?workflowInstanceIds=0", [400], /positive whole number/],
    ["huge", `?workflowInstanceIds=${"9".repeat(400)}`, [400], /positive whole number/],
    ["NUL", "?workflowInstanceIds={pendingSeq}%00", [400], /positive whole number/],
    ["a bad id repeated", "?workflowInstanceIds={pendingSeq}&workflowInstanceIds=x", [400], /positive whole/],
    [
      "an unknown id after a good one",
      "?workflowInstanceIds={pendingSeq},99999",
      [404],
      /No workflow instance/,
    ],
    [
      "1,001 ids",
      `?workflowInstanceIds=${Array.from({ length: 1001 }, (_, i) => i + 1).join(",")}`,
      [400],
      /At most 1000/,
    ],
    // Longer than a request head may be: refused before the route.
    ["10,000 ids", `?workflowInstanceIds=${Array(10_000).fill("{pendingSeq}").join(",")}`, [431]],
  ];
  for (const verb of ["terminate", "stop", "resume"]) {
    for (const [name, q, status, message] of lists) {
      cases.push({
        name: `${verb} ${name}`,
        method: "POST",
        path: `${WF}/instances/${verb}${q}`,
        expect: status,
        message,
      });
    }
    // Instances that have ended: nothing to change, said so (Changed false), nothing changed.
    cases.push({
      name: `${verb} finished instances`,
      method: "POST",
      path: `${WF}/instances/${verb}?workflowInstanceIds={doneSeq},{checkSeq}&workflowInstanceIds={doneSeq}`,
      expect: [202],
    });
    cases.push({
      name: `${verb} with a junk body and no ids`,
      method: "POST",
      path: `${WF}/instances/${verb}`,
      headers: XML_TYPE,
      body: el("WorkflowInstanceIds", WF_NS, "<Id>{pendingSeq}</Id>"),
      expect: [400],
      message: /Name the instances/,
    });
  }
  cases.push({
    name: "stop a task awaiting its decision",
    method: "POST",
    path: `${WF}/instances/stop?workflowInstanceIds={doneSeq},{pendingSeq}`,
    expect: [409],
    message: /waiting for a manager's decision/,
  });
  cases.push({
    name: "resume a task awaiting its decision",
    method: "POST",
    path: `${WF}/instances/resume?workflowInstanceIds={pendingSeq}`,
    expect: [202],
  });
  return cases;
}

/** Activating an ingest configuration: the body is JSON true or false, or {"active": …}. */
function ingestConfigJunk(): Case[] {
  const cases: Case[] = [];
  const bodies: [string, Body][] = [
    ["not JSON", "maybe"],
    ['"maybe"', '"maybe"'],
    ["an array", "[true]"],
    ["an empty array", "[]"],
    ["an empty object", "{}"],
    ["active a string", '{"active":"true"}'],
    ["active a number", '{"active":1}'],
    ["active null", '{"active":null}'],
    ["enabled", '{"enabled":true}'],
    ["truncated object", '{"active":true'],
    ["1", "1"],
    ["0", "0"],
    ["null", "null"],
    ["empty", ""],
    ["blank", " \n "],
    ["truex", "truex"],
    ["tru", "tru"],
    ["yes", "yes"],
    ["on", "on"],
    ["true false", "true false"],
    ["an unclosed quote", '"true'],
    ["NUL then true", "\u0000true"],
    ["5,000 characters", "t".repeat(5000)],
    ["not UTF-8", { latin1: "tr\xfce" }],
  ];
  for (const [i, [name, body]] of bodies.entries()) {
    cases.push({
      name: `ingest config active: ${name}`,
      method: "PUT",
      path: `${CONFIGS}/${i % 2 === 0 ? CONFIG_ON : CONFIG_OFF}/active`,
      headers: JSON_TYPE,
      body,
      expect: [400],
      message: /must be true or false/,
    });
  }
  for (const [name, path, headers, body, status, message] of [
    ["a form", `${CONFIGS}/${CONFIG_OFF}/active`, FORM, "active=true", [400], /must be true or false/],
    ["2 MiB", `${CONFIGS}/${CONFIG_OFF}/active`, JSON_TYPE, TWO_MIB, [413], /1 MiB/],
    ["an unknown configuration", `${CONFIGS}/${UNKNOWN_UUID}/active`, JSON_TYPE, "true", [404], /No ingest/],
    ["a junk id", `${CONFIGS}/%00/active`, JSON_TYPE, "true", [404], /No ingest configuration/],
    ["a 5,000-character id", `${CONFIGS}/${"x".repeat(5000)}/active`, JSON_TYPE, "false", [404], /No ingest/],
  ] as [string, string, Record<string, string>, Body, number[], RegExp][]) {
    cases.push({
      name: `ingest config active: ${name}`,
      method: "PUT",
      path,
      headers,
      body,
      expect: status,
      message,
    });
  }
  return cases;
}

/** Wrong methods and missing tokens on the operations routes. */
function operationsMisc(): Case[] {
  const wrong: [string, string, RegExp][] = [
    ["PUT", `${WF}/definitions`, /use GET or POST/],
    ["DELETE", `${WF}/definitions/11`, /use GET/],
    ["POST", `${WF}/definitions/11/document`, /use GET/],
    ["DELETE", `${WF}/contexts/11`, /use GET/],
    ["PATCH", `${WF}/instances`, /use GET or POST/],
    ["PUT", `${WF}/instances/terminate`, /use GET or POST/],
    ["DELETE", `${WF}/humantasks/{pendingSeq}`, /use GET/],
    ["GET", `${WF}/humantasks/{pendingSeq}/result`, /use POST/],
    ["POST", `${CONFIGS}`, /use GET/],
    ["POST", `${CONFIGS}/${CONFIG_ON}/active`, /use PUT/],
    ["DELETE", `${CONFIGS}/${CONFIG_ON}`, /use GET/],
    ["POST", `${PM}/monitors`, /use GET/],
    ["DELETE", `${PM}/monitors/{check}`, /use GET/],
    ["POST", `${PM}/history`, /use GET/],
    ["DELETE", `${PM}/progress/{check}`, /use GET/],
  ];
  const cases: Case[] = wrong.map(([method, path, message]) => ({
    name: `${method} ${path}`,
    method,
    path,
    headers: XML_TYPE,
    body: method === "GET" ? undefined : "true",
    expect: [405],
    message,
  }));
  // Without a token, or with a junk one: 401 before anything is read or changed.
  for (const [method, path, body, headers] of [
    ["GET", `${WF}/instances`],
    ["POST", `${WF}/instances`, startRequest(START), XML_TYPE],
    ["POST", `${WF}/instances/terminate?workflowInstanceIds={pendingSeq}`],
    ["POST", `${WF}/humantasks/{pendingSeq}/result`, el("HumanTaskResult", WF_NS, RESULT), XML_TYPE],
    ["PUT", `${CONFIGS}/${CONFIG_ON}/active`, "false", JSON_TYPE],
    ["GET", `${PM}/monitors`],
  ] as [string, string, string?, Record<string, string>?][]) {
    cases.push({
      name: `no token: ${method} ${path}`,
      method,
      path,
      body,
      headers,
      auth: false,
      expect: [401],
    });
    cases.push({
      name: `junk token: ${method} ${path}`,
      method,
      path,
      body,
      auth: false,
      headers: { ...headers, "Preservica-Access-Token": "{token}x" },
      expect: [401],
    });
  }
  return cases;
}

const operationsJunk = (): Case[] => [
  ...operationsReads(),
  ...operationsXml(),
  ...operationsChanges(),
  ...ingestConfigJunk(),
  ...operationsMisc(),
];

export const CASES: Case[] = operationsJunk();
export const replyShape = checkOperationsReply;
