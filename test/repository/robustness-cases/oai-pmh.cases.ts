import type { Case } from "./case.js";

/**
 * Junk at OAI-PMH (/OAI-PMH). Protocol errors are OAI-PMH documents (HTTP 200, XML the table checks for
 * well-formedness); only failed authentication is an HTTP error (401, JSON). Nothing here can write.
 */

const O = "/OAI-PMH";
const FORM = { "Content-Type": "application/x-www-form-urlencoded" };
const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64url");
const basic = (s: string) => ({ Authorization: `Basic ${Buffer.from(s, "utf8").toString("base64")}` });
const LR = `${O}?verb=ListRecords`;

export const CASES: Case[] = [
  // authentication
  { name: "oai: no credentials", path: `${O}?verb=Identify`, auth: false, expect: [401] },
  {
    name: "oai: wrong Basic password",
    path: `${O}?verb=Identify`,
    auth: false,
    headers: basic("reader:nope"),
    expect: [401],
  },
  {
    name: "oai: Basic without a colon",
    path: `${O}?verb=Identify`,
    auth: false,
    headers: basic("reader"),
    expect: [401],
  },
  {
    name: "oai: Basic not base64",
    path: `${O}?verb=Identify`,
    auth: false,
    headers: { Authorization: "Basic !!!%%%" },
    expect: [401],
  },
  {
    name: "oai: Basic, huge user name",
    path: `${O}?verb=Identify`,
    auth: false,
    headers: basic(`${"u".repeat(6000)}:x`),
    expect: [401],
  },
  {
    name: "oai: Basic for a two-step account",
    path: `${O}?verb=Identify`,
    auth: false,
    headers: basic("twofactor:twofactor-demo-pw"),
    expect: [401],
  },
  {
    name: "oai: unknown token",
    path: `${O}?verb=Identify`,
    auth: false,
    headers: { "Preservica-Access-Token": "junk" },
    expect: [401],
  },
  // verbs and arguments
  { name: "oai: no verb", path: O, expect: [200] },
  { name: "oai: unknown verb", path: `${O}?verb=%3Cscript%3E`, expect: [200] },
  { name: "oai: huge verb", path: `${O}?verb=${"V".repeat(8000)}`, expect: [200, 414, 431] },
  { name: "oai: verb twice", path: `${O}?verb=Identify&verb=ListSets`, expect: [200] },
  { name: "oai: bad percent-encoding", path: `${O}?verb=Identify%zz&x=%`, expect: [200] },
  { name: "oai: NUL in an argument", path: `${LR}&metadataPrefix=oai_dc&from=2024-01-01%00`, expect: [200] },
  {
    name: "oai: repeated argument",
    path: `${LR}&metadataPrefix=oai_dc&metadataPrefix=oai_dc`,
    expect: [200],
  },
  { name: "oai: empty argument", path: `${LR}&metadataPrefix=`, expect: [200] },
  { name: "oai: unknown argument", path: `${O}?verb=Identify&${"a".repeat(300)}=1`, expect: [200] },
  { name: "oai: many arguments", path: `${O}?verb=ListSets${"&x=1".repeat(1500)}`, expect: [200, 414, 431] },
  {
    name: "oai: markup as metadataPrefix",
    path: `${LR}&metadataPrefix=%3Cx%20a%3D%22%26%22%3E`,
    expect: [200],
  },
  { name: "oai: day 31 of February", path: `${LR}&metadataPrefix=oai_dc&from=2024-02-31`, expect: [200] },
  { name: "oai: year zero", path: `${LR}&metadataPrefix=oai_dc&until=0000-00-00T00:00:00Z`, expect: [200] },
  { name: "oai: huge year", path: `${LR}&metadataPrefix=oai_dc&from=99999999-01-01`, expect: [200] },
  {
    name: "oai: date with offset",
    path: `${LR}&metadataPrefix=oai_dc&from=2024-01-01T00:00:00%2B01:00`,
    expect: [200],
  },
  { name: "oai: set with spaces", path: `${LR}&metadataPrefix=oai_dc&set=a%20b`, expect: [200] },
  {
    name: "oai: deep unknown set",
    path: `${LR}&metadataPrefix=oai_dc&set=${"a:".repeat(1000)}a`,
    expect: [200, 414, 431],
  },
  { name: "oai: set of an asset", path: `${LR}&metadataPrefix=oai_dc&set={io}`, expect: [200] },
  {
    name: "oai: identifier junk",
    path: `${O}?verb=GetRecord&metadataPrefix=oai_dc&identifier=%22%3E%3C`,
    expect: [200],
  },
  {
    name: "oai: identifier of a content object",
    path: `${O}?verb=GetRecord&metadataPrefix=oai_dc&identifier=oai:io:{co}`,
    expect: [200],
  },
  {
    name: "oai: identifier, folder as asset",
    path: `${O}?verb=ListMetadataFormats&identifier=oai:io:{so}`,
    expect: [200],
  },
  // resumption tokens
  { name: "oai: token junk", path: `${O}?verb=ListSets&resumptionToken=junk`, expect: [200] },
  {
    name: "oai: token huge",
    path: `${O}?verb=ListSets&resumptionToken=v1.${"A".repeat(7000)}`,
    expect: [200, 414, 431],
  },
  { name: "oai: token not JSON", path: `${LR}&resumptionToken=v1.${b64("not json")}`, expect: [200] },
  { name: "oai: token JSON array", path: `${LR}&resumptionToken=v1.${b64("[1,2]")}`, expect: [200] },
  {
    name: "oai: token with a huge position",
    path: `${LR}&resumptionToken=v1.${b64('{"verb":"ListRecords","prefix":"oai_dc","after":1e308}')}`,
    expect: [200],
  },
  {
    name: "oai: token with the last position",
    path: `${LR}&resumptionToken=v1.${b64('{"verb":"ListRecords","prefix":"oai_dc","after":9007199254740991}')}`,
    expect: [200],
  },
  {
    name: "oai: token with a bad date",
    path: `${LR}&resumptionToken=v1.${b64('{"verb":"ListRecords","prefix":"oai_dc","from":"x","after":0}')}`,
    expect: [200],
  },
  {
    name: "oai: token with a nested value",
    path: `${LR}&resumptionToken=v1.${b64(`{"verb":"ListRecords","prefix":${"[".repeat(2000)}${"]".repeat(2000)},"after":0}`)}`,
    expect: [200, 414, 431],
  },
  {
    name: "oai: token with markup in the set",
    path: `${LR}&resumptionToken=v1.${b64('{"verb":"ListRecords","prefix":"oai_dc","set":"<a>&","after":0}')}`,
    expect: [200],
  },
  {
    name: "oai: token with other arguments",
    path: `${LR}&metadataPrefix=oai_dc&resumptionToken=x`,
    expect: [200],
  },
  // POST
  {
    name: "oai: POST form junk",
    method: "POST",
    path: O,
    headers: FORM,
    body: "verb=%%%&&&==",
    expect: [200],
  },
  {
    name: "oai: POST JSON",
    method: "POST",
    path: O,
    headers: { "Content-Type": "application/json" },
    body: '{"verb":"Identify"}',
    expect: [200],
  },
  { name: "oai: POST without a type", method: "POST", path: O, body: "verb=Identify", expect: [200] },
  {
    name: "oai: POST bad UTF-8",
    method: "POST",
    path: O,
    headers: FORM,
    body: { latin1: "verb=GetRecord&identifier=oai:so:\u00e9\u00ff&metadataPrefix=oai_dc" },
    expect: [200],
  },
  {
    name: "oai: POST huge body",
    method: "POST",
    path: O,
    headers: FORM,
    body: `verb=Identify&x=${"a".repeat(1_200_000)}`,
    expect: [413],
  },
  {
    name: "oai: POST without credentials",
    method: "POST",
    path: O,
    headers: FORM,
    body: "verb=Identify",
    auth: false,
    expect: [401],
  },
  // methods
  { name: "oai: PUT", method: "PUT", path: `${O}?verb=Identify`, expect: [404, 405] },
  { name: "oai: DELETE", method: "DELETE", path: O, expect: [404, 405] },
];
