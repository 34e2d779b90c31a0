import { rm } from "node:fs/promises";
import { basename } from "node:path";
import type { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { newPackagePath } from "../ingest/packages.js";
import { fileLooksLikeZip, PackageTooLarge, receivePackage } from "../ingest/receive.js";
import { startIngest } from "../ingest/start.js";
import { Permission } from "../store/auth.js";
import { getEntity } from "../store/entities/read.js";
import { type EntityContext, type EntityEnv, progressReply, writableEntity } from "./entity-common.js";
import { DEFAULT_MAX_UPLOAD_BYTES } from "./entity-content-writes.js";

/**
 * `POST /api/entity/structural-objects/{ref}`: a package uploaded into a folder for ingest (the spec's
 * upload path; equals running the standard ingest workflow in that folder). The route checks the
 * folder and the caller's Ingest permission on it before reading the body (400/404/403, nothing
 * stored), streams the body to `<dataDir>/packages/` (never held in memory, capped like content
 * uploads), and answers 202 with the progress token while the ingest runs (docs/repository-api/
 * ingest.md). An upload cut off half-way leaves no file and no action.
 */
export function registerEntityIngestRoutes(api: Hono<EntityEnv>): void {
  api.post("/structural-objects/:ref", async (c) => {
    const folder = writableEntity(c, c.req.param("ref"), "SO", Permission.INGEST);
    const svc = c.get("svc");
    const maxBytes = svc.maxUploadBytes ?? DEFAULT_MAX_UPLOAD_BYTES;
    if (/^multipart\/form-data/i.test(c.req.header("Content-Type") ?? "")) {
      throw new HTTPException(415, {
        message:
          "Send the package (a zip file) itself as the request body with Content-Type: application/octet-stream or application/zip, not as a multipart form",
      });
    }
    const declared = declaredLength(c, maxBytes);
    const body = c.req.raw.body;
    if (declared === 0 || body === null) throw emptyPackage();

    const path = newPackagePath(svc.dataDir);
    let size: number;
    try {
      size = await receivePackage(body, path, maxBytes);
    } catch (err) {
      if (err instanceof PackageTooLarge) throw tooLarge(c, maxBytes);
      throw err;
    }
    const refuse = async (error: HTTPException) => {
      await rm(path, { force: true });
      return error;
    };
    if (size === 0) throw await refuse(emptyPackage());
    if (!(await fileLooksLikeZip(path))) {
      throw await refuse(
        new HTTPException(400, {
          message:
            "The request body is not a zip file; send a package zipped: a folder of files, an OPEX package (.opex manifests) or an XIP package (metadata.xml beside content/)",
        }),
      );
    }
    if (getEntity(svc.db, folder.ref)?.type !== "SO") {
      throw await refuse(
        new HTTPException(404, {
          message: `Folder ${folder.ref} was deleted while the package was uploading; nothing was stored`,
        }),
      );
    }
    const action = startIngest(svc, {
      packagePath: path,
      parentRef: folder.ref,
      username: c.get("caller").user.username,
      source: "upload",
      packageName: packageName(c) ?? basename(path),
    });
    return progressReply(c, action.id, 202);
  });
}

/** The declared Content-Length, checked for form and against the cap before any byte is read. */
function declaredLength(c: EntityContext, maxBytes: number): number | undefined {
  const raw = c.req.header("Content-Length");
  if (raw === undefined) return undefined;
  if (!/^\d{1,16}$/.test(raw.trim())) {
    throw new HTTPException(400, {
      message: `Content-Length must be the package's size in bytes, got "${raw.slice(0, 40)}"`,
    });
  }
  const n = Number(raw.trim());
  if (n > maxBytes) throw tooLarge(c, maxBytes);
  return n;
}

/**
 * The client's name for the package: a Filename header, else the Content-Disposition file name. Node
 * hands header values over as Latin-1; a name sent as UTF-8 is read back as such.
 */
function packageName(c: EntityContext): string | undefined {
  const header =
    c.req.header("Filename") ??
    /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(c.req.header("Content-Disposition") ?? "")?.[1];
  const utf8 = header === undefined ? undefined : Buffer.from(header, "latin1").toString("utf8");
  const raw = utf8?.includes("\uFFFD") ? header : utf8;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this drops.
  const name = raw?.replace(/[\u0000-\u001f\u007f]/g, "").trim();
  return name ? name.slice(0, 255) : undefined;
}

function emptyPackage(): HTTPException {
  return new HTTPException(400, {
    message: "The request body is empty; send the package (a zip file) as the body",
  });
}

/** A 413 that also closes the connection: the rest of the body is never read. */
function tooLarge(c: EntityContext, maxBytes: number): HTTPException {
  const message = `The package is larger than this service accepts (${maxBytes} bytes); nothing was stored. Split it into smaller packages`;
  return new HTTPException(413, { res: c.json({ success: false, message }, 413, { Connection: "close" }) });
}
