import { HTTPException } from "hono/http-exception";
import { childrenNamed, childText, parseXmlBody } from "../http/xml-body.js";
import { XmlWriter } from "../xml/writer.js";
import { S3Error } from "./errors.js";

/** The S3 XML documents the upload answers with, and the one it reads (CompleteMultipartUpload). */

export const S3_NS = "http://s3.amazonaws.com/doc/2006-03-01/";

export interface BucketInfo {
  name: string;
  created: string;
}

export function listBucketsResult(
  owner: { id: string; name: string },
  buckets: readonly BucketInfo[],
): string {
  const w = new XmlWriter().open("ListAllMyBucketsResult", { xmlns: S3_NS });
  w.open("Owner").leaf("ID", owner.id).leaf("DisplayName", owner.name).close("Owner");
  w.open("Buckets");
  for (const b of buckets)
    w.open("Bucket").leaf("Name", b.name).leaf("CreationDate", b.created).close("Bucket");
  return w.close("Buckets").close("ListAllMyBucketsResult").toString();
}

export function initiateMultipartUploadResult(bucket: string, key: string, uploadId: string): string {
  return new XmlWriter()
    .open("InitiateMultipartUploadResult", { xmlns: S3_NS })
    .leaf("Bucket", bucket)
    .leaf("Key", key)
    .leaf("UploadId", uploadId)
    .close("InitiateMultipartUploadResult")
    .toString();
}

export function completeMultipartUploadResult(
  location: string,
  bucket: string,
  key: string,
  etag: string,
): string {
  return new XmlWriter()
    .open("CompleteMultipartUploadResult", { xmlns: S3_NS })
    .leaf("Location", location)
    .leaf("Bucket", bucket)
    .leaf("Key", key)
    .leaf("ETag", etag)
    .close("CompleteMultipartUploadResult")
    .toString();
}

export interface ListedPart {
  partNumber: number;
  etag: string;
  size: number;
  lastModified: string;
}

export function listPartsResult(
  bucket: string,
  key: string,
  uploadId: string,
  owner: { id: string; name: string },
  parts: readonly ListedPart[],
): string {
  const w = new XmlWriter()
    .open("ListPartsResult", { xmlns: S3_NS })
    .leaf("Bucket", bucket)
    .leaf("Key", key)
    .leaf("UploadId", uploadId);
  for (const who of ["Initiator", "Owner"]) {
    w.open(who).leaf("ID", owner.id).leaf("DisplayName", owner.name).close(who);
  }
  w.leaf("StorageClass", "STANDARD")
    .leaf("PartNumberMarker", 0)
    .leaf("NextPartNumberMarker", parts.at(-1)?.partNumber ?? 0)
    .leaf("MaxParts", 10_000)
    .leaf("IsTruncated", "false");
  for (const p of parts) {
    w.open("Part")
      .leaf("PartNumber", p.partNumber)
      .leaf("LastModified", p.lastModified)
      .leaf("ETag", p.etag)
      .leaf("Size", p.size)
      .close("Part");
  }
  return w.close("ListPartsResult").toString();
}

export interface RequestedPart {
  partNumber: number;
  /** The ETag as the client sent it, quotes removed, lower-cased. */
  md5: string;
}

const COMPLETE_EXAMPLE =
  '<CompleteMultipartUpload xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Part><PartNumber>1</PartNumber><ETag>"<md5 of part 1>"</ETag></Part>…</CompleteMultipartUpload>';

/** The parts a CompleteMultipartUpload body lists, in the order listed (checked by the route). */
export function parseCompleteMultipartUpload(text: string): RequestedPart[] {
  let root: ReturnType<typeof parseXmlBody>;
  try {
    root = parseXmlBody(text, COMPLETE_EXAMPLE);
  } catch (err) {
    if (err instanceof HTTPException) throw malformed(err.message);
    throw err;
  }
  if (root.name !== "CompleteMultipartUpload") {
    throw malformed(
      `The body's root element is ${root.name}, not CompleteMultipartUpload; send ${COMPLETE_EXAMPLE}`,
    );
  }
  const parts = childrenNamed(root, "Part");
  if (parts.length === 0) {
    throw malformed(`The CompleteMultipartUpload lists no Part; send ${COMPLETE_EXAMPLE}`);
  }
  return parts.map((p) => {
    const number = (childText(p, "PartNumber") ?? "").trim();
    const etag = (childText(p, "ETag") ?? "").trim();
    if (!/^\d{1,5}$/.test(number)) {
      throw malformed(`A Part's PartNumber must be a number from 1 to 10000, got "${number.slice(0, 20)}"`);
    }
    return { partNumber: Number(number), md5: etag.replace(/^"|"$/g, "").toLowerCase() };
  });
}

function malformed(message: string): S3Error {
  return new S3Error(400, "MalformedXML", message);
}

export interface ListedObject {
  key: string;
  lastModified: string;
  size: number;
}

/** ListObjects (V1 and V2 read the same elements here; no continuation: ask with a longer prefix). */
export function listObjectsResult(
  bucket: string,
  prefix: string,
  maxKeys: number,
  objects: readonly ListedObject[],
  truncated: boolean,
): string {
  const w = new XmlWriter()
    .open("ListBucketResult", { xmlns: S3_NS })
    .leaf("Name", bucket)
    .leaf("Prefix", prefix)
    .leaf("KeyCount", objects.length)
    .leaf("MaxKeys", maxKeys)
    .leaf("IsTruncated", truncated ? "true" : "false");
  for (const o of objects) {
    w.open("Contents")
      .leaf("Key", o.key)
      .leaf("LastModified", o.lastModified)
      .leaf("Size", o.size)
      .leaf("StorageClass", "STANDARD")
      .close("Contents");
  }
  return w.close("ListBucketResult").toString();
}
