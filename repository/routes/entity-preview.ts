import { createHash } from "node:crypto";
import type { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { nowIso } from "../context.js";
import { Permission } from "../store/auth.js";
import type { EntityType } from "../store/entities/types.js";
import { findPreview } from "../store/previews/read.js";
import { deletePreview, setPreview } from "../store/previews/write.js";
import { checkQuota, quotaMessage } from "../store/storage/quota.js";
import { ENTITY_PATH } from "../xml/common.js";
import {
  changeEntity,
  type EntityContext,
  type EntityEnv,
  noContent,
  writableEntity,
} from "./entity-common.js";

/**
 * Custom previews (thumbnails) of folders and assets: PUT …/preview with the image as the body, DELETE
 * …/preview. Needs Update Metadata on the entity's tag. The Content API's thumbnail serves the preview
 * before any image of the entity's content. app.ts lets these bodies past its 1 MiB cap; the cap here is
 * the service's documented 10 MB.
 */

export const MAX_PREVIEW_BYTES = 10 * 1024 * 1024;

/** Image formats the service takes as previews, told apart by their first bytes. */
const SIGNATURES: { mime: string; test: (b: Buffer) => boolean }[] = [
  { mime: "image/png", test: (b) => b.subarray(0, 8).equals(Buffer.from([137, 80, 78, 71, 13, 10, 26, 10])) },
  { mime: "image/jpeg", test: (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff },
  { mime: "image/gif", test: (b) => /^GIF8[79]a/.test(b.subarray(0, 6).toString("latin1")) },
  {
    mime: "image/tiff",
    test: (b) => ["II*\u0000", "MM\u0000*"].includes(b.subarray(0, 4).toString("latin1")),
  },
  { mime: "image/bmp", test: (b) => b.length > 14 && b.subarray(0, 2).toString("latin1") === "BM" },
  {
    mime: "image/webp",
    test: (b) =>
      b.subarray(0, 4).toString("latin1") === "RIFF" && b.subarray(8, 12).toString("latin1") === "WEBP",
  },
];

export function imageTypeOf(bytes: Buffer): string | undefined {
  return SIGNATURES.find((s) => s.test(bytes))?.mime;
}

function tooLarge(): HTTPException {
  const message = `The preview image is larger than ${MAX_PREVIEW_BYTES / 1024 / 1024} MB; send a smaller image`;
  // The rest of the body is not read, so the connection is closed rather than left to drain it.
  const res = new Response(JSON.stringify({ success: false, message }), {
    status: 413,
    headers: { "Content-Type": "application/json", Connection: "close" },
  });
  return new HTTPException(413, { message, res });
}

/** The request body, read up to the cap: 413 as soon as it (or its declared length) goes past it. */
async function readPreviewBody(c: EntityContext): Promise<Buffer> {
  const declared = Number(c.req.header("content-length"));
  if (Number.isFinite(declared) && declared > MAX_PREVIEW_BYTES) throw tooLarge();
  const body = c.req.raw.body;
  if (!body) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_PREVIEW_BYTES) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size);
}

export function registerPreviewRoutes(api: Hono<EntityEnv>): void {
  for (const type of ["SO", "IO"] as const satisfies readonly EntityType[]) {
    const path = ENTITY_PATH[type];

    api.put(`/${path}/:ref/preview`, async (c) => {
      // Checked before the (up to 10 MB) body is read, and again after: the entity may change meanwhile.
      writableEntity(c, c.req.param("ref"), type, Permission.UPDATE_METADATA);
      const bytes = await readPreviewBody(c);
      if (bytes.length === 0) {
        throw new HTTPException(400, {
          message:
            "The request body is empty; send the preview image's bytes (PNG, JPEG, GIF, TIFF, BMP or WebP)",
        });
      }
      const mime = imageTypeOf(bytes);
      if (!mime) {
        throw new HTTPException(400, {
          message:
            "The request body is not a PNG, JPEG, GIF, TIFF, BMP or WebP image; send one of those as the preview",
        });
      }
      const e = writableEntity(c, c.req.param("ref"), type, Permission.UPDATE_METADATA);
      const svc = c.get("svc");
      // The storage quota counts previews too; checked before the image is stored (409, nothing kept). The
      // image it replaces is not subtracted: its bytes are freed only if nothing else names them.
      const sha256 = createHash("sha256").update(bytes).digest("hex");
      const quota = checkQuota(svc.db, [{ sha256, size: bytes.length }]);
      if (!quota.fits) {
        throw new HTTPException(409, {
          message: quotaMessage(quota, `the preview image (${bytes.length} bytes)`, "nothing was stored"),
        });
      }
      const blob = svc.content.put(bytes);
      changeEntity(
        c,
        e,
        "AddPreview",
        (db) => setPreview(db, e.ref, blob, mime, nowIso(c)),
        `Set a custom preview (${mime}, ${blob.size} bytes, sha256 ${blob.sha256})`,
      );
      return noContent(c);
    });

    api.delete(`/${path}/:ref/preview`, (c) => {
      const e = writableEntity(c, c.req.param("ref"), type, Permission.UPDATE_METADATA);
      const { db } = c.get("svc");
      if (!findPreview(db, e.ref)) {
        throw new HTTPException(404, {
          message: `Entity ${e.ref} has no custom preview to remove; PUT an image to …/preview to set one`,
        });
      }
      changeEntity(c, e, "DeletePreview", (db) => deletePreview(db, e.ref), "Removed the custom preview");
      return noContent(c);
    });
  }

  // Content objects show their own content; a preview belongs to the folder or asset above them.
  api.on(["PUT", "DELETE"], `/${ENTITY_PATH.CO}/:ref/preview`, () => {
    throw new HTTPException(400, {
      message: `Content objects have no custom preview; set it on their asset (PUT …/${ENTITY_PATH.IO}/{asset ref}/preview)`,
    });
  });
}
