import {
  folderParameter,
  type Report,
  type ReportInput,
  type ReportRow,
  type ReportStep,
} from "./definitions.js";
import { folderPath, readable, segment, tagsParam } from "./scope.js";

/**
 * Fixity inventory: every bitstream of every active generation of the live assets the user may read,
 * beneath a folder (or everywhere), with the asset's folder path, the file's name and size and the MD5
 * and SHA-256 recorded at ingest: what an auditor checks a copy against. It can be as large as the
 * store, so it walks the tree depth first (folders in the order they were created, assets a page at a
 * time) and hands over each page of rows as it goes; nothing is held beyond one page. Folders the user
 * may not read are walked through (their readable assets count, as search finds them) and appear in
 * paths by reference, never by title.
 */

const ASSETS_PER_STEP = 200;

interface Pending {
  /** null: the top of the hierarchy. */
  ref: string | null;
  path: string;
}

interface AssetRow {
  id: number;
  ref: string;
}

export const fixityInventory: Report = {
  definition: {
    id: "fixity-inventory",
    name: "Fixity inventory",
    description:
      "Every file of every active generation of the live assets you may read, beneath a folder or everywhere: folder path, asset, content object, generation, file name, size, MD5 and SHA-256 as recorded at ingest. One row per file; large stores give large results, written as they are produced.",
    parameters: [
      folderParameter(
        "Reference of the folder whose files (at any depth) are listed",
        "every folder you may read",
      ),
    ],
    columns: [
      { name: "path", title: "Folder path", type: "string" },
      { name: "assetRef", title: "Asset reference", type: "ref" },
      { name: "assetTitle", title: "Asset title", type: "string" },
      { name: "contentObjectRef", title: "Content object reference", type: "ref" },
      { name: "generation", title: "Generation", type: "integer" },
      { name: "filename", title: "File name", type: "string" },
      { name: "size", title: "Size (bytes)", type: "integer" },
      { name: "md5", title: "MD5", type: "string" },
      { name: "sha256", title: "SHA-256", type: "string" },
    ],
  },
  *run(input: ReportInput): Generator<ReportStep> {
    const { db, readableTags } = input;
    const tags = tagsParam(readableTags);
    const root = input.parameters.folder ?? null;
    const total = root
      ? (
          db
            .prepare(
              `WITH RECURSIVE sub(ref) AS (
                 SELECT @root UNION ALL
                 SELECT c.ref FROM sub JOIN entities c INDEXED BY entities_parent ON c.parent_ref = sub.ref WHERE c.type = 'SO' AND c.deleted = 0)
               SELECT count(*) AS n FROM sub JOIN entities io INDEXED BY entities_parent ON io.parent_ref = sub.ref
                WHERE io.type = 'IO' AND io.deleted = 0 AND ${readable("io")}`,
            )
            .get({ root, tags }) as { n: number }
        ).n
      : (
          db
            .prepare(
              `SELECT count(*) AS n FROM entities io WHERE io.type = 'IO' AND io.deleted = 0 AND ${readable("io")}`,
            )
            .get({ tags }) as { n: number }
        ).n;
    const assetsPage = db.prepare(
      `SELECT io.id, io.ref FROM entities io INDEXED BY entities_parent
        WHERE io.parent_ref IS @parent AND io.type = 'IO' AND io.deleted = 0 AND ${readable("io")} AND io.id > @after
        ORDER BY io.id LIMIT @limit`,
    );
    const subFolders = db.prepare(
      "SELECT ref, title, security_tag FROM entities INDEXED BY entities_parent WHERE parent_ref IS ? AND type = 'SO' AND deleted = 0 ORDER BY id",
    );
    const files = db.prepare(
      `SELECT io.ref AS assetRef, io.title AS assetTitle, co.ref AS contentObjectRef, g.idx AS generation,
              b.filename, b.size,
              (SELECT value FROM fixities f WHERE f.bitstream_id = b.id AND f.algorithm = 'MD5') AS md5,
              (SELECT value FROM fixities f WHERE f.bitstream_id = b.id AND f.algorithm = 'SHA256') AS sha256
         FROM entities io
         JOIN entities co INDEXED BY entities_parent ON co.parent_ref = io.ref AND co.type = 'CO' AND co.deleted = 0 AND ${readable("co")}
         JOIN generations g ON g.co_ref = co.ref AND g.active = 1
         JOIN bitstreams b ON b.generation_id = g.id
        WHERE io.ref IN (SELECT value FROM json_each(@refs))
        ORDER BY io.id, co.id, g.idx, b.idx`,
    );

    const stack: Pending[] = [{ ref: root, path: root ? folderPath(db, root, readableTags) : "" }];
    let done = 0;
    while (stack.length > 0) {
      const folder = stack.pop() as Pending;
      let after = 0;
      for (;;) {
        const assets = assetsPage.all({
          parent: folder.ref,
          after,
          limit: ASSETS_PER_STEP,
          tags,
        }) as AssetRow[];
        if (assets.length === 0) break;
        const rows = (files.all({ refs: JSON.stringify(assets.map((a) => a.ref)), tags }) as ReportRow[]).map(
          (r) => ({ path: folder.path, ...r }),
        );
        done += assets.length;
        after = (assets[assets.length - 1] as AssetRow).id;
        yield { rows, done, total };
      }
      const children = subFolders.all(folder.ref) as { ref: string; title: string; security_tag: string }[];
      for (const child of children.reverse()) {
        const name = segment(child.title, child.ref, child.security_tag, readableTags);
        stack.push({ ref: child.ref, path: folder.path ? `${folder.path}/${name}` : name });
      }
      yield { done, total };
    }
  },
};
