import type { Case } from "./case.js";

/**
 * Junk at the read-only CMIS AtomPub endpoint (/api/cmis/atom). Reads answer Atom XML (checked for
 * well-formedness) or the service's JSON errors; every write method is 405 and changes nothing.
 */

const C = "/api/cmis/atom";
const R = `${C}/preservica`;
const basic = (s: string) => ({ Authorization: `Basic ${Buffer.from(s, "utf8").toString("base64")}` });
const ENTRY = { "Content-Type": "application/atom+xml;type=entry" };
const ATOM =
  '<atom:entry xmlns:atom="http://www.w3.org/2005/Atom"><atom:title>Junk</atom:title></atom:entry>';

export const CASES: Case[] = [
  // authentication
  { name: "cmis: no credentials", path: C, auth: false, expect: [401] },
  { name: "cmis: wrong Basic password", path: C, auth: false, headers: basic("reader:nope"), expect: [401] },
  { name: "cmis: Basic without a colon", path: C, auth: false, headers: basic("reader"), expect: [401] },
  {
    name: "cmis: Basic not base64",
    path: C,
    auth: false,
    headers: { Authorization: "Basic !!!%%%" },
    expect: [401],
  },
  {
    name: "cmis: Basic for a two-step account",
    path: `${R}/id?id=root`,
    auth: false,
    headers: basic("twofactor:twofactor-demo-pw"),
    expect: [401],
  },
  {
    name: "cmis: huge Basic user",
    path: C,
    auth: false,
    headers: basic(`${"u".repeat(6000)}:x`),
    expect: [401],
  },
  {
    name: "cmis: unknown token",
    path: C,
    auth: false,
    headers: { "Preservica-Access-Token": "junk" },
    expect: [401],
  },
  // service document and repository
  { name: "cmis: unknown repositoryId", path: `${C}?repositoryId=%3Cx%3E`, expect: [404] },
  {
    name: "cmis: unknown repository path",
    path: `${C}/${"r".repeat(3000)}/id?id=root`,
    expect: [404, 414, 431],
  },
  // objects
  { name: "cmis: id missing", path: `${R}/id`, expect: [400] },
  { name: "cmis: id junk", path: `${R}/id?id=%22%3E%3C%00`, expect: [400] },
  { name: "cmis: id huge", path: `${R}/id?id=${"a".repeat(7000)}`, expect: [400, 414, 431] },
  { name: "cmis: id unknown", path: `${R}/id?id=sdb:IO|00000000-0000-4000-8000-000000000000`, expect: [404] },
  { name: "cmis: id of a content object", path: `${R}/id?id=sdb:CO|{co}`, expect: [404] },
  { name: "cmis: folder named as asset", path: `${R}/id?id=sdb:IO|{so}`, expect: [404] },
  {
    name: "cmis: includeAllowableActions junk",
    path: `${R}/id?id=root&includeAllowableActions=yes`,
    expect: [400],
  },
  {
    name: "cmis: object with everything",
    path: `${R}/id?id=sdb:IO|{io}&includeAllowableActions=TRUE&filter=*&x=1`,
    expect: [200],
  },
  // children and parents
  { name: "cmis: children of an asset", path: `${R}/children?id=sdb:IO|{io}`, expect: [400] },
  { name: "cmis: children, negative maxItems", path: `${R}/children?id=root&maxItems=-1`, expect: [400] },
  {
    name: "cmis: children, huge skipCount",
    path: `${R}/children?id=root&skipCount=999999999999999`,
    expect: [200],
  },
  {
    name: "cmis: children, skipCount too long",
    path: `${R}/children?id=root&skipCount=${"9".repeat(400)}`,
    expect: [400],
  },
  { name: "cmis: children, maxItems 0", path: `${R}/children?id=sdb:SO|{so}&maxItems=0`, expect: [200] },
  { name: "cmis: children, no id", path: `${R}/children`, expect: [400] },
  { name: "cmis: parents of the root", path: `${R}/parents?id=root`, expect: [400] },
  { name: "cmis: parents junk", path: `${R}/parents?id=%3Cscript%3E`, expect: [400] },
  { name: "cmis: parents of an asset", path: `${R}/parents?id=sdb:IO|{io}`, expect: [200] },
  // allowable actions, content, types
  { name: "cmis: allowable actions junk", path: `${R}/allowableactions?id=%ff`, expect: [400] },
  { name: "cmis: allowable actions of root", path: `${R}/allowableactions?id=root`, expect: [200] },
  { name: "cmis: content of a folder", path: `${R}/content?id=sdb:SO|{so}`, expect: [409] },
  { name: "cmis: content of the root", path: `${R}/content?id=root`, expect: [409] },
  {
    name: "cmis: content, bad range",
    path: `${R}/content?id=sdb:IO|{io}`,
    headers: { Range: "bytes=99999999-" },
    expect: [200, 416],
  },
  { name: "cmis: content, no id", path: `${R}/content`, expect: [400] },
  { name: "cmis: type missing", path: `${R}/type`, expect: [400] },
  { name: "cmis: type unknown", path: `${R}/type?id=%3Cx%3E`, expect: [404] },
  {
    name: "cmis: types of unknown type",
    path: `${R}/types?typeId=${"t".repeat(5000)}`,
    expect: [404, 414, 431],
  },
  { name: "cmis: types", path: `${R}/types`, expect: [200] },
  // queries: the statement is parsed by cmis/query.ts, never passed to SQL
  { name: "cmis: query without q", path: `${R}/query`, expect: [400], message: /parameter q is required/ },
  {
    name: "cmis: query junk",
    path: `${R}/query?q=%22%3E%3C%00'`,
    expect: [400],
    message: /CMIS invalidArgument/,
  },
  {
    name: "cmis: query, SQL in a string",
    path: `${R}/query?q=${encodeURIComponent("SELECT * FROM cmis:document WHERE cmis:name = 'x''; DROP TABLE entities; --'")}`,
    expect: [200],
  },
  {
    name: "cmis: query, deep parentheses",
    path: `${R}/query?q=${encodeURIComponent(`SELECT * FROM cmis:document WHERE ${"(".repeat(1500)}CONTAINS('a')${")".repeat(1500)}`)}`,
    expect: [200, 400],
  },
  { name: "cmis: query huge", path: `${R}/query?q=${"S".repeat(7000)}`, expect: [400, 414, 431] },
  {
    name: "cmis: query, maxItems junk",
    path: `${R}/query?q=SELECT%20*%20FROM%20cmis:folder&maxItems=x`,
    expect: [400],
  },
  {
    name: "cmis: query collection, not a cmis:query",
    method: "POST",
    path: `${R}/query`,
    headers: { "Content-Type": "application/cmisquery+xml" },
    body: ATOM,
    expect: [400],
  },
  {
    name: "cmis: query collection, DOCTYPE",
    method: "POST",
    path: `${R}/query`,
    headers: { "Content-Type": "application/cmisquery+xml" },
    body: '<!DOCTYPE q [<!ENTITY x "y">]><cmis:query xmlns:cmis="http://docs.oasis-open.org/ns/cmis/core/200908/"><cmis:statement>&x;</cmis:statement></cmis:query>',
    expect: [400],
  },
  {
    name: "cmis: query collection, maxItems junk",
    method: "POST",
    path: `${R}/query`,
    headers: { "Content-Type": "application/cmisquery+xml" },
    body: '<cmis:query xmlns:cmis="http://docs.oasis-open.org/ns/cmis/core/200908/"><cmis:statement>SELECT * FROM cmis:folder</cmis:statement><cmis:maxItems>-1</cmis:maxItems></cmis:query>',
    expect: [400],
  },
  // writes: all refused
  {
    name: "cmis: create under root",
    method: "POST",
    path: `${R}/children?id=root`,
    headers: ENTRY,
    body: ATOM,
    expect: [405],
  },
  {
    name: "cmis: create, broken XML",
    method: "POST",
    path: `${R}/children?id=sdb:SO|{so}`,
    headers: ENTRY,
    body: "<atom:entry",
    expect: [405],
  },
  {
    name: "cmis: update an asset",
    method: "PUT",
    path: `${R}/id?id=sdb:IO|{io}`,
    headers: ENTRY,
    body: ATOM,
    expect: [405],
  },
  { name: "cmis: delete an asset", method: "DELETE", path: `${R}/id?id=sdb:IO|{io}`, expect: [405] },
  {
    name: "cmis: set content",
    method: "PUT",
    path: `${R}/content?id=sdb:IO|{io}&overwriteFlag=true`,
    headers: { "Content-Type": "text/plain" },
    body: "new bytes",
    expect: [405],
  },
  { name: "cmis: delete content", method: "DELETE", path: `${R}/content?id=sdb:IO|{io}`, expect: [405] },
  {
    name: "cmis: PATCH an object",
    method: "PATCH",
    path: `${R}/id?id=sdb:IO|{io}`,
    body: "{}",
    expect: [405],
  },
  {
    name: "cmis: POST the service document",
    method: "POST",
    path: C,
    headers: ENTRY,
    body: ATOM,
    expect: [405],
  },
  { name: "cmis: PUT the service document", method: "PUT", path: C, body: "x", expect: [405] },
  { name: "cmis: DELETE the service document", method: "DELETE", path: C, expect: [405] },
  { name: "cmis: PATCH the service document", method: "PATCH", path: C, body: "x", expect: [405] },
  {
    name: "cmis: write to an unknown repository",
    method: "POST",
    path: `${C}/other/children?id=root`,
    body: ATOM,
    expect: [404],
  },
];
