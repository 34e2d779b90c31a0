import {
  folderParameter,
  type Report,
  type ReportInput,
  type ReportRow,
  type ReportStep,
} from "./definitions.js";
import { readable, tagsParam } from "./scope.js";

/**
 * Storage by folder: for each folder at the top of the hierarchy (or each folder directly in the folder
 * given), what lies anywhere beneath it: sub-folders, assets, files and bytes (every bitstream of every
 * active generation). Only live entities the user may read count; the walk goes down through every live
 * folder, so an open asset filed under a closed folder still counts for a reader (as search finds it),
 * while closed folders are neither listed nor counted. Assets lying directly in the folder given (not in
 * a sub-folder) get a row of their own. One folder per step.
 */

interface FolderRow {
  ref: string;
  title: string;
  security_tag: string;
}

interface Figures {
  folders: number;
  assets: number;
  files: number;
  bytes: number;
}

/**
 * Everything beneath @folder: the walk carries whether each entity's parent is readable, so a content
 * object counts only when its asset does too. Files are joined only to readable content objects, so each
 * folder and asset row stays one row and counts once.
 */
const SUBTREE = `WITH RECURSIVE sub(ref, type, tag, parentOk) AS (
    SELECT ref, type, security_tag, 1 FROM entities WHERE ref = @folder
    UNION ALL
    SELECT c.ref, c.type, c.security_tag, sub.tag IN (SELECT value FROM json_each(@tags))
      FROM sub JOIN entities c INDEXED BY entities_parent ON c.parent_ref = sub.ref
     WHERE sub.type <> 'CO' AND c.deleted = 0
  ), s AS (SELECT sub.*, sub.tag IN (SELECT value FROM json_each(@tags)) AS ok FROM sub)
  SELECT coalesce(sum(s.type = 'SO' AND s.ref <> @folder AND s.ok), 0) AS folders,
         coalesce(sum(s.type = 'IO' AND s.ok), 0) AS assets,
         count(b.id) AS files, coalesce(sum(b.size), 0) AS bytes
    FROM s
    LEFT JOIN generations g ON s.type = 'CO' AND s.ok AND s.parentOk AND g.co_ref = s.ref AND g.active = 1
    LEFT JOIN bitstreams b ON b.generation_id = g.id`;

/** Live readable assets whose parent is @folder (NULL: the top level), with their files. */
const DIRECT = `SELECT count(DISTINCT io.id) AS assets, count(b.id) AS files, coalesce(sum(b.size), 0) AS bytes
    FROM entities io INDEXED BY entities_parent
    LEFT JOIN entities co INDEXED BY entities_parent ON co.parent_ref = io.ref AND co.type = 'CO' AND co.deleted = 0 AND ${readable("co")}
    LEFT JOIN generations g ON g.co_ref = co.ref AND g.active = 1
    LEFT JOIN bitstreams b ON b.generation_id = g.id
   WHERE io.parent_ref IS @folder AND io.type = 'IO' AND io.deleted = 0 AND ${readable("io")}`;

export const storageByFolder: Report = {
  definition: {
    id: "storage-by-folder",
    name: "Storage by folder",
    description:
      "For each top-level folder, or each folder directly in the folder given, the sub-folders, assets, files and bytes beneath it (every bitstream of every active generation), counting only live entities you may read.",
    parameters: [
      folderParameter(
        "Reference of the folder whose sub-folders are reported (each with everything beneath it)",
        "the top-level folders",
      ),
    ],
    columns: [
      { name: "folderRef", title: "Folder reference", type: "ref" },
      { name: "folderTitle", title: "Folder title", type: "string" },
      { name: "securityTag", title: "Security tag", type: "string" },
      { name: "folders", title: "Sub-folders", type: "integer" },
      { name: "assets", title: "Assets", type: "integer" },
      { name: "files", title: "Files", type: "integer" },
      { name: "bytes", title: "Bytes", type: "integer" },
    ],
  },
  *run(input: ReportInput): Generator<ReportStep> {
    const { db } = input;
    const tags = tagsParam(input.readableTags);
    const parent = input.parameters.folder ?? null;
    const children = db
      .prepare(
        `SELECT ref, title, security_tag FROM entities e INDEXED BY entities_parent
          WHERE e.parent_ref IS @parent AND e.type = 'SO' AND e.deleted = 0 AND ${readable("e")} ORDER BY e.id`,
      )
      .all({ parent, tags }) as FolderRow[];
    const subtree = db.prepare(SUBTREE);
    const total = children.length + 1;
    let done = 0;
    for (const f of children) {
      const figures = subtree.get({ folder: f.ref, tags }) as Figures;
      done++;
      yield { rows: [row(f.ref, f.title, f.security_tag, figures)], done, total };
    }
    // Assets directly in the folder given (or at the top level): a row only when there are some.
    const direct = db.prepare(DIRECT).get({ folder: parent, tags }) as Omit<Figures, "folders">;
    done++;
    if (direct.assets === 0) {
      yield { done, total };
      return;
    }
    const here = parent
      ? (db.prepare("SELECT title, security_tag FROM entities WHERE ref = ?").get(parent) as {
          title: string;
          security_tag: string;
        })
      : undefined;
    yield {
      rows: [
        row(
          parent ?? "",
          here ? `(assets directly in ${here.title})` : "(assets at the top level)",
          here?.security_tag ?? "",
          { folders: 0, ...direct },
        ),
      ],
      done,
      total,
    };
  },
};

function row(ref: string, title: string, tag: string, f: Figures): ReportRow {
  return {
    folderRef: ref,
    folderTitle: title,
    securityTag: tag,
    folders: f.folders,
    assets: f.assets,
    files: f.files,
    bytes: f.bytes,
  };
}
