import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { StoredBlob } from "../../../repository/store/content-store.js";
import type { Db } from "../../../repository/store/db.js";
import { openDatabase } from "../../../repository/store/db.js";
import {
  addBitstream,
  addGeneration,
  addRepresentation,
  insertEntity,
} from "../../../repository/store/entities/write.js";
import { deletePreview, setPreview } from "../../../repository/store/previews/write.js";
import { removeEntities } from "../../../repository/store/recycle-bin/write.js";
import { usedBytes } from "../../../repository/store/storage/quota.js";
import { storedBytes } from "../../../repository/store/storage/read.js";
import { propertyRuns } from "../../helpers/property-runs.js";

/**
 * The bytes held, kept by triggers (migration 13), always equal a count made from scratch over every
 * bitstream and preview, whatever sequence of writes came before: files added (the same bytes more than
 * once), previews set, replaced and removed, entities removed for good (bitstreams go by cascade).
 */

function counted(db: Db): { bytes: number; blobs: number } {
  return db
    .prepare(
      `SELECT COALESCE(SUM(size), 0) AS bytes, COUNT(*) AS blobs FROM (
         SELECT content_sha256, MAX(size) AS size FROM (
           SELECT content_sha256, size FROM bitstreams UNION ALL SELECT content_sha256, size FROM previews
         ) GROUP BY content_sha256)`,
    )
    .get() as { bytes: number; blobs: number };
}

/** Five possible contents: a small set, so the same bytes are often named more than once. */
const BLOBS: StoredBlob[] = [1, 2, 3, 4, 5].map((n) => ({
  sha256: `${n}`.repeat(64),
  size: n * 1000,
  fixity: {
    MD5: `${n}`.repeat(32),
    SHA1: `${n}`.repeat(40),
    SHA256: `${n}`.repeat(64),
    SHA512: `${n}`.repeat(128),
  },
}));

type Op =
  | { kind: "asset"; blobs: number[] }
  | { kind: "preview"; target: number; blob: number }
  | { kind: "unpreview"; target: number }
  | { kind: "remove"; target: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant("asset" as const),
    blobs: fc.array(fc.nat(4), { minLength: 1, maxLength: 3 }),
  }),
  fc.record({ kind: fc.constant("preview" as const), target: fc.nat(20), blob: fc.nat(4) }),
  fc.record({ kind: fc.constant("unpreview" as const), target: fc.nat(20) }),
  fc.record({ kind: fc.constant("remove" as const), target: fc.nat(20) }),
);

function apply(db: Db, assets: string[], folder: string, o: Op): void {
  const pick = (n: number) => assets[n % Math.max(1, assets.length)];
  switch (o.kind) {
    case "asset": {
      const io = insertEntity(db, { type: "IO", title: "a", securityTag: "open", parentRef: folder });
      const co = insertEntity(db, { type: "CO", title: "c", securityTag: "open", parentRef: io.ref });
      addRepresentation(db, io.ref, "Preservation", null, [co.ref]);
      const gen = addGeneration(db, co.ref, {});
      for (const [i, b] of o.blobs.entries()) {
        addBitstream(db, gen, { filename: `f${i}`, mimeType: "text/plain", blob: BLOBS[b] as StoredBlob });
      }
      assets.push(io.ref);
      return;
    }
    case "preview": {
      const ref = pick(o.target);
      if (ref) setPreview(db, ref, BLOBS[o.blob] as StoredBlob, "image/png", "2026-01-01T00:00:00Z");
      return;
    }
    case "unpreview": {
      const ref = pick(o.target);
      if (ref) deletePreview(db, ref);
      return;
    }
    case "remove": {
      const ref = pick(o.target);
      if (!ref) return;
      const cos = db.prepare("SELECT ref FROM entities WHERE parent_ref = ?").all(ref) as { ref: string }[];
      removeEntities(db, [ref, ...cos.map((c) => c.ref)]);
      assets.splice(assets.indexOf(ref), 1);
      return;
    }
  }
}

describe("the bytes held, kept by triggers", () => {
  it("equal a count from scratch after any sequence of writes", () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        const db = openDatabase(null);
        try {
          const folder = insertEntity(db, {
            type: "SO",
            title: "f",
            securityTag: "open",
            parentRef: null,
          }).ref;
          const assets: string[] = [];
          for (const o of ops) {
            apply(db, assets, folder, o);
            const want = counted(db);
            expect(usedBytes(db)).toBe(want.bytes);
            expect(storedBytes(db)).toMatchObject({ usedBytes: want.bytes, blobs: want.blobs });
          }
        } finally {
          db.close();
        }
      }),
      { numRuns: propertyRuns(20, 200) },
    );
  });
});
