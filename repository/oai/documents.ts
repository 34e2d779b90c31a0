import { DC_ELEMENTS, type DcValue } from "../search/dublin-core.js";
import { XmlWriter } from "../xml/writer.js";
import type { OaiErrorCode } from "./request.js";

/**
 * The OAI-PMH 2.0 documents this provider answers with. Every value goes through XmlWriter, which
 * escapes text and attributes and drops characters XML cannot carry, so arguments echoed in `request`
 * and metadata taken from stored fragments can never break a reply.
 */

export const OAI_NS = "http://www.openarchives.org/OAI/2.0/";
export const OAI_SCHEMA = "http://www.openarchives.org/OAI/2.0/OAI-PMH.xsd";
export const OAI_DC_NS = "http://www.openarchives.org/OAI/2.0/oai_dc/";
export const OAI_DC_SCHEMA = "http://www.openarchives.org/OAI/2.0/oai_dc.xsd";
const XSI_NS = "http://www.w3.org/2001/XMLSchema-instance";
const DC_NS = "http://purl.org/dc/elements/1.1/";

export interface Envelope {
  responseDate: string;
  baseUrl: string;
  /** Attributes of `request`: the verb and arguments, or none for badVerb/badArgument (§3.6). */
  request: Record<string, string>;
}

function open(env: Envelope): XmlWriter {
  const w = new XmlWriter().open("OAI-PMH", {
    xmlns: OAI_NS,
    "xmlns:xsi": XSI_NS,
    "xsi:schemaLocation": `${OAI_NS} ${OAI_SCHEMA}`,
  });
  w.leaf("responseDate", env.responseDate);
  return w.leaf("request", env.baseUrl, env.request);
}

export function errorDocument(env: Envelope, errors: { code: OaiErrorCode; message: string }[]): string {
  const w = open(env);
  for (const e of errors) w.leaf("error", e.message, { code: e.code });
  return w.close("OAI-PMH").toString();
}

export interface IdentifyInfo {
  repositoryName: string;
  adminEmail: string;
  earliestDatestamp: string;
}

export function identifyDocument(env: Envelope, info: IdentifyInfo): string {
  return open(env)
    .open("Identify")
    .leaf("repositoryName", info.repositoryName)
    .leaf("baseURL", env.baseUrl)
    .leaf("protocolVersion", "2.0")
    .leaf("adminEmail", info.adminEmail)
    .leaf("earliestDatestamp", info.earliestDatestamp)
    .leaf("deletedRecord", "transient")
    .leaf("granularity", "YYYY-MM-DDThh:mm:ssZ")
    .close("Identify")
    .close("OAI-PMH")
    .toString();
}

export function metadataFormatsDocument(env: Envelope): string {
  return open(env)
    .open("ListMetadataFormats")
    .open("metadataFormat")
    .leaf("metadataPrefix", "oai_dc")
    .leaf("schema", OAI_DC_SCHEMA)
    .leaf("metadataNamespace", OAI_DC_NS)
    .close("metadataFormat")
    .close("ListMetadataFormats")
    .close("OAI-PMH")
    .toString();
}

export interface HeaderInfo {
  identifier: string;
  datestamp: string;
  setSpecs: string[];
  deleted: boolean;
}

function header(w: XmlWriter, h: HeaderInfo): void {
  w.open("header", h.deleted ? { status: "deleted" } : undefined)
    .leaf("identifier", h.identifier)
    .leaf("datestamp", h.datestamp);
  for (const s of h.setSpecs) w.leaf("setSpec", s);
  w.close("header");
}

export interface RecordInfo extends HeaderInfo {
  /** The oai_dc values (absent for deleted records). */
  dc: DcValue[];
}

function record(w: XmlWriter, r: RecordInfo): void {
  w.open("record");
  header(w, r);
  if (!r.deleted) {
    w.open("metadata").open("oai_dc:dc", {
      "xmlns:oai_dc": OAI_DC_NS,
      "xmlns:dc": DC_NS,
      "xmlns:xsi": XSI_NS,
      "xsi:schemaLocation": `${OAI_DC_NS} ${OAI_DC_SCHEMA}`,
    });
    // oai_dc's schema takes the fifteen elements in any order; they are grouped in the usual order.
    for (const name of DC_ELEMENTS) for (const v of r.dc) if (v.name === name) w.leaf(`dc:${name}`, v.value);
    w.close("oai_dc:dc").close("metadata");
  }
  w.close("record");
}

export interface ResumptionInfo {
  /** Empty on the last page of a list that was paged. */
  token: string;
  completeListSize: number;
  cursor: number;
}

function resumption(w: XmlWriter, r: ResumptionInfo | undefined): void {
  if (r) w.leaf("resumptionToken", r.token, { completeListSize: r.completeListSize, cursor: r.cursor });
}

export function getRecordDocument(env: Envelope, r: RecordInfo): string {
  const w = open(env).open("GetRecord");
  record(w, r);
  return w.close("GetRecord").close("OAI-PMH").toString();
}

export function listRecordsDocument(env: Envelope, records: RecordInfo[], more?: ResumptionInfo): string {
  const w = open(env).open("ListRecords");
  for (const r of records) record(w, r);
  resumption(w, more);
  return w.close("ListRecords").close("OAI-PMH").toString();
}

export function listIdentifiersDocument(env: Envelope, headers: HeaderInfo[], more?: ResumptionInfo): string {
  const w = open(env).open("ListIdentifiers");
  for (const h of headers) header(w, h);
  resumption(w, more);
  return w.close("ListIdentifiers").close("OAI-PMH").toString();
}

export interface SetInfo {
  setSpec: string;
  setName: string;
  description: string | null;
}

export function listSetsDocument(env: Envelope, sets: SetInfo[], more?: ResumptionInfo): string {
  const w = open(env).open("ListSets");
  for (const s of sets) {
    w.open("set").leaf("setSpec", s.setSpec).leaf("setName", s.setName);
    if (s.description) {
      w.open("setDescription")
        .open("oai_dc:dc", {
          "xmlns:oai_dc": OAI_DC_NS,
          "xmlns:dc": DC_NS,
          "xmlns:xsi": XSI_NS,
          "xsi:schemaLocation": `${OAI_DC_NS} ${OAI_DC_SCHEMA}`,
        })
        .leaf("dc:description", s.description)
        .close("oai_dc:dc")
        .close("setDescription");
    }
    w.close("set");
  }
  resumption(w, more);
  return w.close("ListSets").close("OAI-PMH").toString();
}
