import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { RunningRepository } from "../../../repository/server.js";
import type { EntityRow } from "../../../repository/store/entities/types.js";
import { addFragment, insertEntity } from "../../../repository/store/entities/write.js";
import { applyFields, DUBLIN_CORE, type FieldValue, OAI_DC_SCHEMA } from "../../../src/api/metadata-build.js";
import type { Era } from "../../helpers/mcp.js";
import { tempDir } from "../../helpers/temp-dir.js";
import { useMcp, useRepository } from "../../helpers/use-mcp.js";

/**
 * What the metadata tool tests share: fixtures written straight into the service's store (each test its own),
 * a digest of everything a metadata change could touch (to prove a preview changed nothing), the audit log.
 */

export { OAI_DC_SCHEMA };
export const HOSTILE = `Smith & <Jones> "the elder" ]]> </dc:creator>`;

export function asset(
  repo: RunningRepository,
  title = "Minute book",
  opts: { description?: string } = {},
): EntityRow {
  const parent = insertEntity(repo.svc.db, { type: "SO", title: "Metadata tests", securityTag: "open" });
  return insertEntity(repo.svc.db, {
    type: "IO",
    title,
    securityTag: "open",
    parentRef: parent.ref,
    ...(opts.description ? { description: opts.description } : {}),
  });
}

/** An asset with a Dublin Core fragment of these fields; returns the asset and the fragment's mref. */
export function assetWithDc(
  repo: RunningRepository,
  fields: Record<string, FieldValue>,
  title = "Described asset",
) {
  const a = asset(repo, title);
  const mref = addFragment(repo.svc.db, a.ref, OAI_DC_SCHEMA, applyFields(DUBLIN_CORE, undefined, fields));
  return { asset: a, mref };
}

export function fragmentsOf(
  repo: RunningRepository,
  ref: string,
): { mref: string; schema_uri: string; content: string }[] {
  return repo.svc.db
    .prepare(
      "SELECT mref, schema_uri, content FROM metadata_fragments WHERE entity_ref = ? ORDER BY created, mref",
    )
    .all(ref) as { mref: string; schema_uri: string; content: string }[];
}

/** A digest of what a metadata change could touch: entities, fragments, identifiers, links, events. */
export function storeDigest(repo: RunningRepository): string {
  const db = repo.svc.db;
  const h = createHash("sha256");
  for (const sql of [
    "SELECT ref, title, description, modified FROM entities ORDER BY ref",
    "SELECT mref, entity_ref, schema_uri, content FROM metadata_fragments ORDER BY mref",
    "SELECT api_id, entity_ref, type, value FROM identifiers ORDER BY api_id",
    "SELECT api_id, link_type, from_ref, to_ref FROM links ORDER BY api_id",
    "SELECT COUNT(*) AS n FROM events",
  ]) {
    h.update(JSON.stringify(db.prepare(sql).all()));
  }
  return h.digest("hex");
}

/**
 * What each metadata tool test starts with: a store of its own (no demo collection) and a curator whose changes
 * are written to `auditLog` (the undo tool reads it back); other people are added with `useMcp` on `repo`.
 */
export function useAuditedCurator(era: Era) {
  const auditLog = tempAuditLog();
  const repo = useRepository({ seed: "none" });
  const curator = useMcp({
    user: "curator",
    flags: ["--toolsets", "all", "--audit-log", auditLog],
    era,
    repo,
  });
  return { auditLog, repo, curator };
}

export function tempAuditLog(): string {
  return join(tempDir("metadata-audit-"), "audit.jsonl");
}

export function auditLines(file: string): Record<string, unknown>[] {
  try {
    return readFileSync(file, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  } catch {
    return [];
  }
}

/** The audit entry id an answer's text names ("Audit entry <id>: …"). */
export function auditIdIn(text: string): string | undefined {
  return /Audit entry ([0-9a-f-]{36})/.exec(text)?.[1];
}
