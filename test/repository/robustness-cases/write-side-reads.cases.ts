import type { Case } from "./case.js";
import { BAD_DATES, BAD_NUMBERS, BAD_REFS, spread, UNKNOWN_UUID } from "./junk.js";
import { withParam } from "./read-routes.js";
import { E, FORM, M } from "./wire.js";

/**
 * Read routes of the write side, and wrong methods on write routes
 */

const NEW_READS = [
  `${E}/recycle-bin`,
  `${E}/retention-policies`,
  `${E}/retention-events`,
  `${E}/information-objects/{io}/retention-assignments`,
  `${E}/actions`,
  `${E}/actions/deletions`,
  `${E}/actions/deletions/{done}`,
];

function newReadJunk(): Case[] {
  const cases: Case[] = [];
  const baselines = [
    ...NEW_READS,
    `${E}/retention-policies/{policy}`,
    `${E}/progress/{pending}`,
    `${E}/progress/{done}`,
    `${E}/structural-objects/{so}/identifiers/{soId}`,
    `${E}/information-objects/{io}/identifiers/{ioId}`,
    `${E}/content-objects/{co}/identifiers/{coId}`,
    `${E}/information-objects/{io}/links/{ioLink}`,
    `${E}/structural-objects/{so}/links/{ioLink}`,
    `${E}/v6.0/retention-policies/{policy}`,
    `${E}/v6.0/actions/deletions/{done}`,
    `${M}/groups`,
    `${M}/groups/`,
    `${M}/groups/{group}`,
    `${M}/forms`,
    `${M}/forms/`,
    `${M}/forms/{form}`,
    `${M}/forms?schemaUri=%00`,
    `${M}/csv-templates/download?ids={group}`,
    `${M}/csv-templates/download?ids={form},{group}`,
  ];
  for (const p of baselines) cases.push({ name: `baseline ${p}`, path: p, expect: [200] });
  // A read route the read table had missed (the route coverage test found it): content objects'
  // fragments; they have none, so another entity's fragment is not found.
  cases.push({
    name: "content object fragment of another entity",
    path: `${E}/content-objects/{co}/metadata/{ioMref}`,
    expect: [404],
  });
  cases.push({
    name: "content object fragment junk",
    path: `${E}/content-objects/{co}/metadata/x{co}`,
    expect: [404],
  });
  for (const p of baselines.slice(0, 12)) cases.push({ name: `HEAD ${p}`, method: "HEAD", path: p });
  for (const [i, p] of NEW_READS.entries()) {
    for (const param of ["start", "max"]) {
      for (const v of spread(BAD_NUMBERS, i)) {
        cases.push({
          name: `${param}=${v.slice(0, 20)} on ${p.slice(E.length)}`,
          path: withParam(p, `${param}=${v}`),
          expect: param === "max" && v === "-1" ? [200] : [400],
        });
      }
    }
  }
  for (const d of BAD_DATES.slice(0, 6)) {
    for (const param of ["from", "to"]) {
      cases.push({
        name: `retention-events ${param}=${d}`,
        path: `${E}/retention-events?${param}=${d}`,
        expect: [400],
      });
    }
  }
  // pyPreservica sends start/max as a form body on GET retention-policies.
  for (const [body, status] of [
    ["start=-1", [400]],
    ["max=abc", [400]],
    ["max=1.5&start=0", [400]],
    ["<start>1</start>", [200]],
    ['{"start":-1}', [200]],
  ] as const) {
    cases.push({
      name: `GET retention-policies with body ${body}`,
      path: `${E}/retention-policies`,
      headers: { ...FORM, "Content-Length": String(Buffer.byteLength(body)) },
      body,
      expect: [...status],
    });
  }
  for (const [name, q] of [
    ["status junk", "status=SOMETIMES"],
    ["status NUL", "status=%00"],
    ["status 5,000 characters", `status=${"s".repeat(5000)}`],
  ]) {
    cases.push({
      name: `actions ${name}`,
      path: `${E}/actions?${q}`,
      expect: [400],
      message: /status must be one of/,
    });
    cases.push({ name: `actions/deletions ${name}`, path: `${E}/actions/deletions?${q}`, expect: [400] });
  }
  cases.push({ name: "actions username junk", path: `${E}/actions?username=%00%C3%28`, expect: [200] });
  for (const kind of ["nope", "%00", "DELETIONS", "x".repeat(3000)]) {
    cases.push({
      name: `actions kind ${kind.slice(0, 12)}`,
      path: `${E}/actions/${kind}`,
      expect: [404],
      message: /No action listing/,
    });
    cases.push({
      name: `actions kind ${kind.slice(0, 12)} with an id`,
      path: `${E}/actions/${kind}/{done}`,
      expect: [404],
    });
  }
  cases.push({
    name: "a deletion among recoveries",
    path: `${E}/actions/recoveries/{done}`,
    expect: [404],
    message: /listed under/,
  });
  for (const [i, bad] of [...BAD_REFS.slice(0, 8), UNKNOWN_UUID, "{io}", "{policy}"].entries()) {
    // Malformed or unknown, a token in the path names nothing: 404 either way.
    const status = [404];
    cases.push({ name: `progress ${bad.slice(0, 16)}`, path: `${E}/progress/${bad}`, expect: status });
    if (i % 2 === 0)
      cases.push({
        name: `actions/deletions/${bad.slice(0, 16)}`,
        path: `${E}/actions/deletions/${bad}`,
        expect: status,
      });
    if (i % 2 === 1)
      cases.push({
        name: `retention policy ${bad.slice(0, 16)}`,
        path: `${E}/retention-policies/${bad}`,
        expect: bad === "{policy}" ? [200] : status,
      });
  }
  return cases;
}

export const CASES: Case[] = newReadJunk();
