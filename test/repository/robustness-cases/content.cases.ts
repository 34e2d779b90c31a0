import type { Case } from "./case.js";
import { BAD_NUMBERS, BAD_REFS, spread, UNKNOWN_UUID } from "./junk.js";
import { LISTINGS, withParam } from "./read-routes.js";
import { C, E, FORM, JSON_TYPE } from "./wire.js";

/**
 * Junk at the Content API's listings (GET and form or JSON POST) and id routes, and Range headers on the
 * two downloads.
 */

const RANGES: [string, number[]][] = [
  ["bytes=0-9", [206]],
  ["bytes=5-2", [200]],
  ["bytes=abc", [200]],
  ["bytes=0-1,3-4", [200]],
  ["bytes=0-1, 3-4", [200]],
  ["bytes=", [200]],
  ["bytes=-", [200]],
  ["bytes=-0", [416]],
  ["bytes=1e3-", [200]],
  ["bytes=--1", [200]],
  ["items=0-1", [200]],
  ["bytes=99999999999999999999999-", [416]],
  ["bytes=-99999999999999999999999", [206]],
  ["bytes=0-99999999999999999999999", [206]],
  [`bytes=${"1".repeat(8000)}-`, [416]],
  ["bytes=9007199254740993-9007199254740999", [416]],
];

function contentJunk(): Case[] {
  const cases: Case[] = [];
  for (const [i, l] of LISTINGS.entries()) {
    const [path = "", query = ""] = l.split("?");
    for (const p of ["start", "max"]) {
      for (const v of spread(BAD_NUMBERS, i)) {
        const expectStatus = p === "max" && v === "-1" ? [200] : [400];
        cases.push({
          name: `GET ${p}=${v.slice(0, 20)} ${path}`,
          path: withParam(C + l, `${p}=${v}`),
          expect: expectStatus,
        });
        cases.push({
          name: `POST ${p}=${v.slice(0, 20)} ${path}`,
          method: "POST",
          path: C + path,
          headers: FORM,
          body: `${query}&${p}=${v}`,
          expect: expectStatus,
        });
      }
    }
    cases.push({
      name: `POST JSON max=1.5 ${path}`,
      method: "POST",
      path: `${C}${path}?${query}`,
      headers: JSON_TYPE,
      body: '{"max":1.5}',
      expect: [400],
    });
    cases.push({
      name: `POST JSON max=[] ${path}`,
      method: "POST",
      path: `${C}${path}?${query}`,
      headers: JSON_TYPE,
      body: '{"max":[]}',
      expect: [200],
    });
    cases.push({
      name: `POST JSON array ${path}`,
      method: "POST",
      path: `${C}${path}?${query}`,
      headers: JSON_TYPE,
      body: "[1,2]",
      expect: [400],
    });
  }
  const idRoutes = [
    ["/object-details?id=", "io"],
    ["/download?id=", "io"],
    ["/thumbnail?id=", "io"],
    ["/object-children?id=", "so"],
    ["/search-within?parenthierarchy=", "so"],
  ] as const;
  for (const [r] of idRoutes) {
    // Surrounding whitespace is forgiven here (parseObjectId trims), unlike in a path segment.
    for (const bad of [
      ...BAD_REFS.filter((b) => b !== "{io}%20"),
      "sdb:XX|{io}",
      "sdb:IO|",
      "sdb:IO%7C{io}%00",
      "sdb:io|{io}x",
      "",
    ]) {
      cases.push({ name: `id ${bad.slice(0, 24)} at ${r}`, path: `${C}${r}${bad}`, expect: [400] });
    }
    cases.push({ name: `unknown id at ${r}`, path: `${C}${r}${UNKNOWN_UUID}`, expect: [404] });
  }
  cases.push({ name: "folder id typed as asset", path: `${C}/object-details?id=sdb:IO|{so}`, expect: [404] });
  cases.push({
    name: "asset as parenthierarchy",
    path: `${C}/search-within?parenthierarchy=sdb:IO|{io}`,
    expect: [404],
  });
  cases.push({ name: "fragment ref as id", path: `${C}/object-details?id={ioMref}`, expect: [404] });
  cases.push({ name: "event ref as id", path: `${C}/download?id={event}`, expect: [404] });
  for (const [range, expectStatus] of RANGES) {
    for (const p of [
      `${E}/content-objects/{co}/generations/1/bitstreams/1/content`,
      `${C}/download?id=sdb:IO|{io}`,
    ]) {
      cases.push({
        name: `Range ${range.slice(0, 30)} ${p.slice(0, 30)}`,
        path: p,
        headers: { Range: range },
        expect: expectStatus,
      });
    }
  }
  return cases;
}

export const CASES: Case[] = contentJunk();
