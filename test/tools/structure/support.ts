import { createHash } from "node:crypto";
import type { RunningRepository } from "../../../repository/server.js";
import type { EntityRow } from "../../../repository/store/entities/types.js";
import { insertEntity } from "../../../repository/store/entities/write.js";
import { authed, login } from "../../helpers/repository.js";

/**
 * What the structure tool tests share: fixtures written straight into the service's store (each test its
 * own, so tests do not depend on one another), a digest of the store to prove a preview changed nothing,
 * and waiting on a job through the service's own progress route (`job_status` belongs to another toolset).
 */

export function folder(
  repo: RunningRepository,
  title: string,
  parent: EntityRow | null = null,
  tag = "open",
) {
  return insertEntity(repo.svc.db, { type: "SO", title, securityTag: tag, parentRef: parent?.ref ?? null });
}

export function asset(repo: RunningRepository, title: string, parent: EntityRow, tag = "open") {
  return insertEntity(repo.svc.db, { type: "IO", title, securityTag: tag, parentRef: parent.ref });
}

/** The row as the service now has it. */
export function row(repo: RunningRepository, ref: string): EntityRow {
  return repo.svc.db.prepare("SELECT * FROM entities WHERE ref = ?").get(ref) as EntityRow;
}

/** A digest of everything a structure change could touch: entities, actions, events. */
export function storeDigest(repo: RunningRepository): string {
  const db = repo.svc.db;
  const h = createHash("sha256");
  for (const sql of [
    "SELECT ref, parent_ref, security_tag, title, modified, deleted FROM entities ORDER BY ref",
    "SELECT COUNT(*) AS n FROM actions",
    "SELECT COUNT(*) AS n FROM events",
  ]) {
    h.update(JSON.stringify(db.prepare(sql).all()));
  }
  return h.digest("hex");
}

/** Polls `GET /api/entity/progress/{token}` until the action is no longer ACTIVE. */
export async function waitForJob(repo: RunningRepository, token: string) {
  const get = authed(repo.url, (await login(repo.url, "manager")).token);
  for (let i = 0; i < 400; i++) {
    const res = await get(`/api/entity/progress/${token}`);
    const xml = await res.text();
    const status = /<(?:\w+:)?Status>([^<]*)</.exec(xml)?.[1];
    if (status && status !== "ACTIVE")
      return { status, message: /<(?:\w+:)?Message>([^<]*)</.exec(xml)?.[1] };
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`job ${token} still ACTIVE`);
}
