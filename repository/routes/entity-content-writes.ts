import type { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { ADD_REPRESENTATION_KIND, type AddRepresentationParams } from "../jobs/add-representation.js";
import { REPLACE_CONTENT_KIND, type ReplaceContentParams } from "../jobs/replace-content.js";
import { startAction } from "../jobs/start.js";
import { Permission } from "../store/auth.js";
import { BlobTooLargeError, type StoredBlob } from "../store/content-store.js";
import { getEntity } from "../store/entities/read.js";
import { checkQuota, quotaMessage } from "../store/storage/quota.js";
import { type EntityContext, type EntityEnv, progressReply, writableEntity } from "./entity-common.js";

/**
 * Content writes: replacing a content object's content (a new generation) and adding access
 * representations. The route checks everything it can before reading the body (4xx, nothing stored),
 * then streams the body to the content store (never holding it in memory) while the fixities are
 * computed; a declared fixity that does not match refuses the file before it is stored, and so does the
 * storage quota (409; the action checks it again). Only then is the action created; it adds the rows (wire facts: wire-writes-admin.md §1, wire-formats.md §2.10).
 */

/** Largest file an upload may send unless the service was started with another `maxUploadBytes`. */
export const DEFAULT_MAX_UPLOAD_BYTES = 4 * 1024 ** 3;

type Algorithm = keyof StoredBlob["fixity"];

/** Fixity headers clients send (pyPreservica: Fixity-MD5, Fixity-SHA-1, ...), with the hex length of each. */
const FIXITY_HEADERS: { algorithm: Algorithm; headers: string[]; hexLength: number }[] = [
  { algorithm: "MD5", headers: ["Fixity-MD5"], hexLength: 32 },
  { algorithm: "SHA1", headers: ["Fixity-SHA-1", "Fixity-SHA1"], hexLength: 40 },
  { algorithm: "SHA256", headers: ["Fixity-SHA-256", "Fixity-SHA256"], hexLength: 64 },
  { algorithm: "SHA512", headers: ["Fixity-SHA-512", "Fixity-SHA512"], hexLength: 128 },
];
const FIXITY_HEADER_LIST = "Fixity-MD5, Fixity-SHA-1, Fixity-SHA-256 or Fixity-SHA-512";

interface ExpectedFixity {
  algorithm: Algorithm;
  header: string;
  value: string;
}

export function registerEntityContentWriteRoutes(api: Hono<EntityEnv>): void {
  api.post("/content-objects/:ref/generations", async (c) => {
    const co = writableEntity(c, c.req.param("ref"), "CO", Permission.INGEST);
    const replaceType = c.req.query("replaceType");
    if (replaceType !== undefined && replaceType.toLowerCase() !== "previous") {
      throw new HTTPException(400, {
        message: `replaceType "${replaceType}" is not supported; send replaceType=previous (the new file becomes the active generation and the previous one is kept, inactive)`,
      });
    }
    const filename = uploadFilename(headerText(c, "Filename"), "The Filename header");
    const expected = expectedFixities(c);
    if (expected.length === 0) {
      throw new HTTPException(400, {
        message: `Send the file's checksum in one of the headers ${FIXITY_HEADER_LIST} (hex); the service checks the bytes it receives against it`,
      });
    }
    const blob = await receiveUpload(c, expected, () => {
      if (getEntity(c.get("svc").db, co.ref)?.type !== "CO") {
        throw new HTTPException(404, {
          message: `Content object ${co.ref} was deleted while its new content was uploading; nothing was stored`,
        });
      }
    });
    const params: ReplaceContentParams = { coRef: co.ref, filename, blob };
    const action = startAction(c, {
      kind: REPLACE_CONTENT_KIND,
      entityRef: co.ref,
      entityType: "CO",
      params,
      total: 1,
    });
    // The real service answers this one 200, not 202; clients check for 200.
    return progressReply(c, action.id, 200);
  });

  api.post("/information-objects/:ref/representations", async (c) => {
    const io = writableEntity(c, c.req.param("ref"), "IO", Permission.INGEST);
    const type = c.req.query("type");
    if (type === undefined || type === "") {
      throw new HTTPException(400, {
        message:
          "Parameter type is required: send type=Access (with name=… and filename=…) to add an access representation",
      });
    }
    if (type.toLowerCase() !== "access") {
      throw new HTTPException(400, {
        message: `Only Access representations may be added this way, not "${type}"; to put a new file in a preservation representation, replace a content object's content with POST …/content-objects/{ref}/generations`,
      });
    }
    const name = representationName(c.req.query("name"));
    const filename = uploadFilename(c.req.query("filename"), "Parameter filename");
    const blob = await receiveUpload(c, expectedFixities(c), () => {
      if (getEntity(c.get("svc").db, io.ref)?.type !== "IO") {
        throw new HTTPException(404, {
          message: `Asset ${io.ref} was deleted while the representation's file was uploading; nothing was stored`,
        });
      }
    });
    const params: AddRepresentationParams = { ioRef: io.ref, name, filename, blob };
    const action = startAction(c, {
      kind: ADD_REPRESENTATION_KIND,
      entityRef: io.ref,
      entityType: "IO",
      params,
      total: 1,
    });
    return progressReply(c, action.id, 202);
  });
}

/**
 * A header as text. Node hands header values over as Latin-1; a client that sent UTF-8 (a file name
 * with accents) gets its name back when the bytes are valid UTF-8.
 */
function headerText(c: EntityContext, name: string): string | undefined {
  const raw = c.req.header(name);
  if (raw === undefined) return undefined;
  const utf8 = Buffer.from(raw, "latin1").toString("utf8");
  return utf8.includes("\uFFFD") ? raw : utf8;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses.
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;

/** A bare file name (no folders), as the bitstream records it. */
function uploadFilename(raw: string | undefined, what: string): string {
  const name = raw?.trim() ?? "";
  if (name === "") {
    throw new HTTPException(400, {
      message: `${what} is required: the name of the file being uploaded, e.g. report.pdf`,
    });
  }
  if (/[/\\]/.test(name) || name === "." || name === ".." || CONTROL_CHARS.test(name)) {
    throw new HTTPException(400, {
      message: `${what} must be a bare file name such as report.pdf (no folders, no control characters), got "${name.replace(CONTROL_CHARS, "?")}"`,
    });
  }
  if (name.length > 255) {
    throw new HTTPException(400, {
      message: `${what} is longer than 255 characters; send a shorter file name`,
    });
  }
  return name;
}

function representationName(raw: string | undefined): string {
  const name = raw?.trim() ?? "";
  if (name === "") return "Access";
  if (CONTROL_CHARS.test(name) || name.length > 255) {
    throw new HTTPException(400, {
      message: "Parameter name must be at most 255 characters without control characters, e.g. name=Access",
    });
  }
  return name;
}

/** Fixity headers the client sent, checked for form (hex of the algorithm's length). */
function expectedFixities(c: EntityContext): ExpectedFixity[] {
  const found: ExpectedFixity[] = [];
  for (const { algorithm, headers, hexLength } of FIXITY_HEADERS) {
    for (const header of headers) {
      const raw = c.req.header(header);
      if (raw === undefined) continue;
      const value = raw.trim().toLowerCase();
      if (!new RegExp(`^[0-9a-f]{${hexLength}}$`).test(value)) {
        throw new HTTPException(400, {
          message: `Header ${header} must be the file's ${algorithm} checksum as ${hexLength} hexadecimal digits, got "${raw.slice(0, 140)}"`,
        });
      }
      found.push({ algorithm, header, value });
    }
  }
  return found;
}

/** A 413 that also closes the connection: the rest of the body is never read. */
function tooLarge(c: EntityContext, maxBytes: number): HTTPException {
  const message = `The file is larger than this service accepts (${maxBytes} bytes); nothing was stored`;
  return new HTTPException(413, {
    res: c.json({ success: false, message }, 413, { Connection: "close" }),
  });
}

/**
 * Streams the request body to the content store. Refuses, storing nothing: a declared length over the
 * cap (before reading), a body over the cap (as soon as it passes it), an empty body, a body whose
 * fixity differs from a declared one, whatever `stillWanted` refuses, and a file that would take the
 * repository past its storage quota (checked just before the blob
 * is stored, so a target deleted during a long upload leaves nothing behind).
 */
async function receiveUpload(
  c: EntityContext,
  expected: ExpectedFixity[],
  stillWanted: () => void,
): Promise<StoredBlob> {
  const svc = c.get("svc");
  const maxBytes = svc.maxUploadBytes ?? DEFAULT_MAX_UPLOAD_BYTES;
  if (/^multipart\/form-data/i.test(c.req.header("Content-Type") ?? "")) {
    throw new HTTPException(415, {
      message:
        "Send the file itself as the request body with Content-Type: application/octet-stream, not as a multipart form",
    });
  }
  const rawLength = c.req.header("Content-Length");
  let declared: number | undefined;
  if (rawLength !== undefined) {
    if (!/^\d{1,16}$/.test(rawLength.trim())) {
      throw new HTTPException(400, {
        message: `Content-Length must be the file's size in bytes, got "${rawLength.slice(0, 40)}"`,
      });
    }
    declared = Number(rawLength.trim());
    if (declared > maxBytes) throw tooLarge(c, maxBytes);
  }
  const body = c.req.raw.body;
  if (declared === 0 || body === null) throw emptyBody();
  try {
    return await svc.content.putStream(body, {
      maxBytes,
      verify: (blob) => {
        if (blob.size === 0) throw emptyBody();
        for (const e of expected) {
          const actual = blob.fixity[e.algorithm];
          if (actual !== e.value) {
            throw new HTTPException(400, {
              message: `The file received does not match its ${e.header} header: the header says ${e.value}, the ${blob.size} bytes received have ${actual}; nothing was stored. Check the file and its checksum, and send it again`,
            });
          }
        }
        stillWanted();
        // Last, with the bytes hashed but not yet stored: a file the repository already holds costs
        // nothing. 409, as for the edition's other limits: the repository's state refuses it, and
        // freeing space or raising the quota lets the same request succeed (413 means "too large to be
        // accepted at all" and closes the connection).
        const quota = checkQuota(svc.db, [blob]);
        if (!quota.fits) {
          throw new HTTPException(409, {
            message: quotaMessage(quota, `the uploaded file (${blob.size} bytes)`, "nothing was stored"),
          });
        }
      },
    });
  } catch (err) {
    if (err instanceof BlobTooLargeError) throw tooLarge(c, err.maxBytes);
    throw err;
  }
}

function emptyBody(): HTTPException {
  return new HTTPException(400, {
    message:
      "The request body is empty; send the file's bytes as the body (Content-Type: application/octet-stream)",
  });
}
