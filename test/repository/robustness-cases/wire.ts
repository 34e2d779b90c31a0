import { createHash } from "node:crypto";

/**
 * What requests are made of: base paths, content types, namespaces, an XML element, and bodies the routes
 * would take (a folder, an asset, a PNG, a file, a multipart form).
 */

export const E = "/api/entity";
export const C = "/api/content";
export const FORM = { "Content-Type": "application/x-www-form-urlencoded" };
export const JSON_TYPE = { "Content-Type": "application/json" };
export const XIP7 = "http://preservica.com/XIP/v7.7";
export const ENT7 = "http://preservica.com/EntityAPI/v7.7";
export const RM = "http://preservica.com/RetentionManagement/v6.2";
const DC = "http://purl.org/dc/elements/1.1/";
export const XML_TYPE = { "Content-Type": "application/xml;charset=UTF-8" };
export const TEXT_TYPE = { "Content-Type": "text/plain;charset=UTF-8" };
export const CSV_TYPE = { "Content-Type": "text/csv;charset=UTF-8" };
export const OCTET = { "Content-Type": "application/octet-stream" };

export const el = (name: string, ns: string, inner: string) => `<${name} xmlns="${ns}">${inner}</${name}>`;
export const TYPES = [
  ["so", "structural-objects", "StructuralObject"],
  ["io", "information-objects", "InformationObject"],
  ["co", "content-objects", "ContentObject"],
] as const;

export const FOLDER = "<Title>Junk folder</Title><SecurityTag>open</SecurityTag><Parent>{so}</Parent>";
export const ASSET = "<Title>Junk asset</Title><SecurityTag>open</SecurityTag><Parent>{so}</Parent>";
export const PHYSICAL = "<Representation><Type>Physical</Type></Representation>";
export const DC_DOC = `<dc xmlns="${DC}"><title>Junk</title></dc>`;
export const container = (ref: string, extra = "") =>
  el("MetadataContainer", XIP7, `${extra}<Entity>${ref}</Entity><Content>${DC_DOC}</Content>`);
export const DELETION = "<Submission><Comment>junk</Comment></Submission>";
export const APPROVAL = "<Approval><Approved>false</Approved><Comment>junk</Comment></Approval>";
export const POLICY =
  "<Name>Junk policy</Name><SecurityTag>open</SecurityTag><Period>7</Period><PeriodUnit>YEARS</PeriodUnit>";
/** A 1×1 PNG. */
export const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64",
);
export const FILE = Buffer.from("Junk content that must never be stored.\n");
export const md5 = (b: Buffer | string) => createHash("md5").update(b).digest("hex");
export const sha1 = (b: Buffer | string) => createHash("sha1").update(b).digest("hex");
export const multipart = (file: Buffer) =>
  Buffer.concat([
    Buffer.from(
      '--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n',
    ),
    file,
    Buffer.from("\r\n--xyz--\r\n"),
  ]);

export const M = "/api/metadata";
export const R = "/api/reports";
export const WF = "/sdb/rest/workflow";
export const WF_NS = "http://workflow.preservica.com";
