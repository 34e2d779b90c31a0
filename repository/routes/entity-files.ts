import type { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { propertiesOnRead } from "../characterise/on-read.js";
import { Permission } from "../store/auth.js";
import {
  bitstreamsOf,
  findBitstream,
  findGeneration,
  findRepresentation,
  findRepresentationNamed,
  fixitiesOf,
  generationsPage,
  representationObjects,
  representationsPage,
} from "../store/entities/read.js";
import type { BitstreamRecord, GenerationRecord } from "../store/entities/types.js";
import { checkedAdapterName, integrityChecksPage } from "../store/files/integrity-history.js";
import {
  bitstreamDocument,
  generationDocument,
  generationsDocument,
  integrityHistoryDocument,
  representationDocument,
  representationsDocument,
} from "../xml/file-docs.js";
import { streamStoredFile } from "./byte-range.js";
import {
  type EntityContext,
  type EntityEnv,
  listMeta,
  pagedXml,
  paging,
  readableEntity,
  readableTags,
  requireIndex,
  requirePermission,
  xml,
} from "./entity-common.js";

/**
 * The content chain of the Entity API: representations of an asset, generations of a content object,
 * bitstreams of a generation, and the bitstream bytes (streamed from the content store, with Range).
 */
export function registerEntityFileRoutes(api: Hono<EntityEnv>): void {
  api.get("/information-objects/:ref/representations", (c) => {
    const io = readableEntity(c, c.req.param("ref"), "IO");
    return pagedXml(
      c,
      (start, max) => representationsPage(c.get("svc").db, io.ref, start, max),
      (items, meta) => representationsDocument(c.get("render"), io.ref, items, meta),
    );
  });

  const representation = (c: EntityContext, rawIdx: string | undefined) => {
    const io = readableEntity(c, c.req.param("ref"), "IO");
    const type = c.req.param("type") ?? "";
    const idx = rawIdx === undefined ? 1 : requireIndex(rawIdx, "Representation number");
    const db = c.get("svc").db;
    const rep =
      (rawIdx === undefined ? findRepresentationNamed(db, io.ref, type) : undefined) ??
      findRepresentation(db, io.ref, type, idx);
    if (!rep) {
      const what =
        rawIdx === undefined
          ? `representation named ${type} and no ${type} representation`
          : `${type} representation ${idx}`;
      throw new HTTPException(404, {
        message: `Asset ${io.ref} has no ${what}; list them at …/information-objects/${io.ref}/representations`,
      });
    }
    return xml(
      c,
      representationDocument(c.get("render"), rep, representationObjects(db, rep.id, readableTags(c))),
    );
  };
  // `…/representations/{name}` names a representation by its name (Access-2), as the real service
  // addresses them; failing that, `…/representations/{type}` alone names the first of that type.
  api.get("/information-objects/:ref/representations/:type", (c) => representation(c, undefined));
  api.get("/information-objects/:ref/representations/:type/:n", (c) => representation(c, c.req.param("n")));

  api.get("/content-objects/:ref/generations", (c) => {
    const co = readableEntity(c, c.req.param("ref"), "CO");
    return pagedXml(
      c,
      (start, max) => generationsPage(c.get("svc").db, co.ref, start, max),
      (items, meta) => generationsDocument(c.get("render"), co.ref, items, meta),
    );
  });

  api.get("/content-objects/:ref/generations/:n", async (c) => {
    const g = readableGeneration(c);
    const { db, content } = c.get("svc");
    const bitstreams = bitstreamsOf(db, g.id);
    const properties = await propertiesOnRead(db, content, g.id, bitstreams);
    return xml(c, generationDocument(c.get("render"), g, bitstreams, properties));
  });

  api.get("/content-objects/:ref/generations/:n/bitstreams/:m", (c) => {
    const { generation, bitstream } = readableBitstream(c);
    const fixities = fixitiesOf(c.get("svc").db, bitstream.id);
    return xml(c, bitstreamDocument(c.get("render"), generation, bitstream, fixities));
  });

  api.get("/content-objects/:ref/generations/:n/bitstreams/:m/integrity-check-history", (c) => {
    const { generation, bitstream } = readableBitstream(c);
    const { start, max } = paging(c);
    const db = c.get("svc").db;
    const page = integrityChecksPage(db, generation.co_ref, generation.idx, bitstream.idx, start, max);
    const meta = listMeta(c, start, max, page.total);
    return xml(c, integrityHistoryDocument(c.get("render"), page.items, checkedAdapterName(db), meta));
  });

  api.get("/content-objects/:ref/generations/:n/bitstreams/:m/content", (c) => {
    const { bitstream: b } = readableBitstream(c, Permission.DOWNLOAD);
    return streamStoredFile(c, c.get("svc").content, {
      sha256: b.content_sha256,
      size: b.size,
      mimeType: b.mime_type,
      filename: b.filename,
    });
  });
}

function readableGeneration(c: EntityContext, extra?: Permission): GenerationRecord {
  const co = readableEntity(c, c.req.param("ref"), "CO");
  if (extra) requirePermission(c, co, extra);
  const idx = requireIndex(c.req.param("n"), "Generation number");
  const g = findGeneration(c.get("svc").db, co.ref, idx);
  if (!g) {
    throw new HTTPException(404, {
      message: `Content object ${co.ref} has no generation ${idx}; list them at …/content-objects/${co.ref}/generations`,
    });
  }
  return g;
}

function readableBitstream(
  c: EntityContext,
  extra?: Permission,
): { generation: GenerationRecord; bitstream: BitstreamRecord } {
  const generation = readableGeneration(c, extra);
  const idx = requireIndex(c.req.param("m"), "Bitstream number");
  const bitstream = findBitstream(c.get("svc").db, generation.id, idx);
  if (!bitstream) {
    throw new HTTPException(404, {
      message: `Generation ${generation.idx} of content object ${generation.co_ref} has no bitstream ${idx}`,
    });
  }
  return { generation, bitstream };
}
