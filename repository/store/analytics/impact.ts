import type { Db } from "../db.js";
import type { FormatPolicy, MigrationConfig, MigrationRule } from "../settings/migration-config.js";
import { prepared } from "../statements.js";

/**
 * The policy.impact data set: what a migration configuration would do if automatic preservation were
 * enabled now, computed from the formats really stored. Every live asset falls under the first rule (by
 * priority) whose scope holds it: a listed asset, or an asset anywhere under a listed folder; a rule with
 * no entity refs holds everything. The asset is acted on when the rule's profile migrates the format of
 * one of its preservation files (the active generation's PRONOM id); RETAIN and formats the profile does
 * not name leave a file as it is.
 */

export interface ImpactFile {
  coRef: string;
  filename: string;
  puid: string | null;
  formatName: string | null;
  size: number;
  action: "MIGRATE" | "RETAIN" | "NONE";
  targetPuid: string | null;
}

export interface ImpactAsset {
  ref: string;
  title: string;
  securityTag: string;
  ruleId: string;
  profileId: string;
  files: ImpactFile[];
}

export interface PolicyImpact {
  summary: {
    assetsConsidered: number;
    assetsInScope: number;
    assetsAffected: number;
    filesAffected: number;
    bytesAffected: number;
  };
  rules: {
    ruleId: string;
    priority: number;
    profileId: string;
    profileName: string;
    assetsInScope: number;
    assetsAffected: number;
  }[];
  formats: {
    puid: string;
    formatName: string | null;
    action: "MIGRATE";
    targetPuid: string | null;
    assets: number;
    files: number;
    bytes: number;
  }[];
  /** The assets acted on (at least one file migrated), in rule order then title. */
  assets: ImpactAsset[];
}

interface FileRow {
  io_ref: string;
  co_ref: string;
  filename: string;
  size: number;
  puid: string | null;
  format_name: string | null;
}

/** The live assets a rule's scope holds (folders walked down to their assets). */
export function assetsInScope(
  db: Db,
  rule: MigrationRule,
): { ref: string; title: string; security_tag: string }[] {
  if (rule.entityRefs.length === 0) {
    return prepared(
      db,
      "SELECT ref, title, security_tag FROM entities WHERE type = 'IO' AND deleted = 0 ORDER BY title, ref",
    ).all() as { ref: string; title: string; security_tag: string }[];
  }
  return prepared(
    db,
    `WITH RECURSIVE scope (ref) AS (
       SELECT ref FROM entities WHERE ref IN (SELECT value FROM json_each(?)) AND deleted = 0 AND type IN ('SO', 'IO')
       UNION
       SELECT e.ref FROM entities e JOIN scope s ON e.parent_ref = s.ref WHERE e.deleted = 0 AND e.type IN ('SO', 'IO')
     )
     SELECT e.ref, e.title, e.security_tag FROM entities e JOIN scope s ON s.ref = e.ref WHERE e.type = 'IO'
     ORDER BY e.title, e.ref`,
  ).all(JSON.stringify(rule.entityRefs)) as { ref: string; title: string; security_tag: string }[];
}

/** An asset's preservation files in their active generations, with the formats recorded for them. */
function preservationFiles(db: Db, ioRef: string): FileRow[] {
  return prepared(
    db,
    `SELECT r.io_ref, co.ref AS co_ref, b.filename, b.size, g.format_puid AS puid, g.format_name
     FROM representations r
     JOIN representation_objects ro ON ro.representation_id = r.id
     JOIN entities co ON co.ref = ro.co_ref AND co.deleted = 0
     JOIN generations g ON g.co_ref = co.ref AND g.active = 1
     JOIN bitstreams b ON b.generation_id = g.id
     WHERE r.io_ref = ? AND r.type = 'Preservation'
     ORDER BY r.idx, ro.position, g.idx, b.idx`,
  ).all(ioRef) as FileRow[];
}

/**
 * Computes the impact step by step: one step per rule, so a caller (the generation job) can report
 * progress and let requests be answered in between. Yields the number of rules done.
 */
export function* computeImpact(db: Db, config: MigrationConfig): Generator<number, PolicyImpact, void> {
  const profiles = new Map(config.profiles.map((p) => [p.id, p]));
  const taken = new Set<string>();
  const out: PolicyImpact = {
    summary: { assetsConsidered: 0, assetsInScope: 0, assetsAffected: 0, filesAffected: 0, bytesAffected: 0 },
    rules: [],
    formats: [],
    assets: [],
  };
  const formats = new Map<string, PolicyImpact["formats"][number] & { assetRefs: Set<string> }>();
  out.summary.assetsConsidered = (
    prepared(db, "SELECT count(*) AS n FROM entities WHERE type = 'IO' AND deleted = 0").get() as {
      n: number;
    }
  ).n;
  const rules = [...config.rules].sort((a, b) => a.priority - b.priority);
  for (const rule of rules) {
    const profile = profiles.get(rule.profileId);
    const policies = new Map<string, FormatPolicy>((profile?.formats ?? []).map((f) => [f.puid, f]));
    const summary = {
      ruleId: rule.id,
      priority: rule.priority,
      profileId: rule.profileId,
      profileName: profile?.name ?? rule.profileId,
      assetsInScope: 0,
      assetsAffected: 0,
    };
    for (const asset of assetsInScope(db, rule)) {
      if (taken.has(asset.ref)) continue;
      taken.add(asset.ref);
      summary.assetsInScope++;
      const files: ImpactFile[] = preservationFiles(db, asset.ref).map((f) => {
        const p = f.puid ? policies.get(f.puid) : undefined;
        return {
          coRef: f.co_ref,
          filename: f.filename,
          puid: f.puid,
          formatName: f.format_name,
          size: f.size,
          action: p?.action ?? "NONE",
          targetPuid: p?.targetPuid ?? null,
        };
      });
      const migrated = files.filter((f) => f.action === "MIGRATE");
      if (migrated.length === 0) continue;
      summary.assetsAffected++;
      out.summary.filesAffected += migrated.length;
      out.summary.bytesAffected += migrated.reduce((n, f) => n + f.size, 0);
      for (const f of migrated) {
        const key = `${f.puid}→${f.targetPuid}`;
        let fmt = formats.get(key);
        if (!fmt) {
          fmt = {
            puid: f.puid as string,
            formatName: f.formatName,
            action: "MIGRATE",
            targetPuid: f.targetPuid,
            assets: 0,
            files: 0,
            bytes: 0,
            assetRefs: new Set(),
          };
          formats.set(key, fmt);
        }
        fmt.files++;
        fmt.bytes += f.size;
        fmt.assetRefs.add(asset.ref);
      }
      out.assets.push({
        ref: asset.ref,
        title: asset.title,
        securityTag: asset.security_tag,
        ruleId: rule.id,
        profileId: rule.profileId,
        files,
      });
    }
    out.summary.assetsInScope += summary.assetsInScope;
    out.summary.assetsAffected += summary.assetsAffected;
    out.rules.push(summary);
    yield out.rules.length;
  }
  out.formats = [...formats.values()]
    .map(({ assetRefs, ...f }) => ({ ...f, assets: assetRefs.size }))
    .sort((a, b) => b.files - a.files || a.puid.localeCompare(b.puid));
  return out;
}
