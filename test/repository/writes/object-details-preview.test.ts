import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../../repository/server.js";
import { addSecurityTag, grant, Permission, Role } from "../../../repository/store/auth.js";
import { insertEntity } from "../../../repository/store/entities/write.js";
import { startTestRepository } from "../../helpers/repository.js";
import { LONG_AGO, signIn, type Users } from "./write-helpers.js";

/**
 * The Content API's object-details names a thumbnail link exactly when the thumbnail route would serve
 * one: a custom preview (PUT …/preview) makes it appear, for folders too, with the preview's type;
 * removing the preview takes it away again. Like the thumbnail itself, it is shown only to callers who
 * may download the entity.
 */

/** A 1×1 PNG. */
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64",
);
/** The first bytes of a GIF, all the service looks at. */
const GIF = Buffer.concat([Buffer.from("GIF89a", "latin1"), Buffer.alloc(40, 1)]);

let repo: RunningRepository;
let u: Users;
const fx = {} as { folder: string; asset: string; catalogued: string };

beforeAll(async () => {
  repo = await startTestRepository();
  const db = repo.svc.db;
  // A tag whose entities the reader may read but not download (catalogue records only).
  addSecurityTag(db, "catalogue");
  grant(db, Role.ACCESS, "catalogue", [Permission.READ_METADATA]);
  grant(db, Role.DATA_MANAGEMENT, "catalogue", [
    Permission.READ_METADATA,
    Permission.DOWNLOAD,
    Permission.UPDATE_METADATA,
  ]);
  db.transaction(() => {
    const old = { created: LONG_AGO };
    fx.folder = insertEntity(db, { type: "SO", title: "Harbour records", securityTag: "open", ...old }).ref;
    fx.asset = insertEntity(db, {
      type: "IO",
      title: "Lighthouse log",
      securityTag: "open",
      parentRef: fx.folder,
      ...old,
    }).ref;
    fx.catalogued = insertEntity(db, {
      type: "IO",
      title: "Catalogued ledger",
      securityTag: "catalogue",
      parentRef: fx.folder,
      ...old,
    }).ref;
  })();
  u = await signIn(repo);
});

afterAll(async () => {
  await repo?.close();
});

interface Link {
  rel: string;
  href: string;
  type: string;
}

async function links(who: Users[keyof Users], id: string): Promise<Link[]> {
  const res = await who(`/api/content/object-details?id=${encodeURIComponent(id)}`);
  const body = (await res.json()) as { value: { links: Link[] } };
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body.value.links;
}

const thumbnailLink = (all: Link[]) => all.filter((l) => l.rel === "thumbnail");

async function setPreview(path: string, ref: string, image: Buffer): Promise<void> {
  const res = await u.curator(`/api/entity/${path}/${ref}/preview`, {
    method: "PUT",
    headers: { "Content-Type": "application/octet-stream" },
    body: image,
  });
  expect(res.status, await res.text()).toBe(204);
}

describe("object-details and custom previews", () => {
  it("links the thumbnail of a folder or asset while it has a custom preview, with the preview's type", async () => {
    for (const [path, type, ref, image, mime] of [
      ["structural-objects", "SO", () => fx.folder, PNG, "image/png"],
      ["information-objects", "IO", () => fx.asset, GIF, "image/gif"],
    ] as const) {
      const id = `sdb:${type}|${ref()}`;
      expect(thumbnailLink(await links(u.reader, id)), `${type} before a preview`).toEqual([]);

      await setPreview(path, ref(), image);
      const [link, ...more] = thumbnailLink(await links(u.reader, id));
      expect(more).toEqual([]);
      expect(link?.type).toBe(mime);
      // The link leads to the preview itself.
      const href = new URL(String(link?.href));
      expect(href.origin).toBe(new URL(repo.url).origin);
      const served = await u.reader(href.pathname + href.search);
      expect(served.status).toBe(200);
      expect(served.headers.get("content-type")).toBe(mime);
      expect(Buffer.from(await served.arrayBuffer()).equals(image)).toBe(true);

      const del = await u.curator(`/api/entity/${path}/${ref()}/preview`, { method: "DELETE" });
      expect(del.status).toBe(204);
      expect(thumbnailLink(await links(u.reader, id)), `${type} after the preview is removed`).toEqual([]);
    }
  });

  it("shows the link only to callers who may download the entity, as the thumbnail route serves it", async () => {
    await setPreview("information-objects", fx.catalogued, PNG);
    const id = `sdb:IO|${fx.catalogued}`;
    expect(thumbnailLink(await links(u.curator, id)).map((l) => l.type)).toEqual(["image/png"]);
    // The reader sees the asset's details but may not download it, so the thumbnail would be a 403.
    expect(thumbnailLink(await links(u.reader, id))).toEqual([]);
    expect((await u.reader(`/api/content/thumbnail?id=${encodeURIComponent(id)}`)).status).toBe(403);
  });
});
