import type { Case } from "./case.js";
import { E, el, M, XIP7, XML_TYPE } from "./wire.js";

/** One wrong method on each write route (and on a few read routes of the write side): 405 naming the right ones. */
export const WRONG_METHODS: [string, string, RegExp][] = [
  ["PATCH", `${E}/structural-objects`, /use POST/],
  ["GET", `${E}/information-objects`, /use POST/],
  ["PATCH", `${E}/information-objects/{io}`, /use GET or PUT or DELETE/],
  ["PATCH", `${E}/information-objects/{io}/metadata/{ioMref}`, /use GET or PUT or DELETE/],
  ["POST", `${E}/structural-objects/{so}/identifiers/{soId}`, /use GET or PUT or DELETE/],
  ["PUT", `${E}/information-objects/{io}/links/{ioLink}`, /use GET or DELETE/],
  ["GET", `${E}/information-objects/{io}/preview`, /use PUT or DELETE/],
  ["POST", `${E}/content-objects/{co}/preview`, /use PUT or DELETE/],
  ["GET", `${E}/structural-objects/{so}/parent-ref`, /use PUT/],
  ["POST", `${E}/content-objects/{co}/security-descriptor`, /use PUT/],
  ["PUT", `${E}/content-objects/{co}/generations`, /use GET or POST/],
  ["DELETE", `${E}/information-objects/{io}/representations`, /use GET or POST/],
  ["GET", `${E}/actions/recoveries/`, /use POST/],
  ["GET", `${E}/actions/final-deletions/`, /use POST/],
  ["DELETE", `${E}/actions/deletions/{pending}`, /use GET or PUT/],
  ["PUT", `${E}/actions/metadata-csv-edits`, /use GET or POST/],
  ["PATCH", `${E}/retention-policies`, /use GET or POST/],
  ["POST", `${E}/retention-policies/{policy}`, /use GET or PUT or DELETE/],
  ["GET", `${E}/retention-policies/{policy}/assignable`, /use PUT/],
  ["PUT", `${E}/information-objects/{io}/retention-assignments/{assignment}`, /use DELETE/],
  ["POST", `${E}/recycle-bin`, /use GET/],
  ["POST", `${E}/progress/{done}`, /use GET/],
  ["PATCH", `${M}/groups`, /use GET or POST/],
  ["PATCH", `${M}/forms/{form}`, /use GET or PUT or DELETE/],
  ["POST", `${M}/csv-templates/download`, /use GET/],
  ["PATCH", `${E}/v6.0/structural-objects/{so}/preview`, /use PUT or DELETE/],
];

function wrongMethods(): Case[] {
  return WRONG_METHODS.map(([method, path, message]) => ({
    name: `${method} ${path}`,
    method,
    path,
    headers: XML_TYPE,
    body: method === "GET" ? undefined : el("Wrong", XIP7, "<Title>Junk</Title>"),
    expect: [405],
    message,
  }));
}

export const CASES: Case[] = wrongMethods();
