import type { Db } from "../db.js";
import { prepared } from "../statements.js";
import type { FormatPolicy, MigrationConfig, MigrationProfile, MigrationRule } from "./migration-config.js";

/** Reads of the Settings API's stored configuration: the live migration policy, drafts, enrichment. */

interface ProfileRow {
  id: string;
  name: string;
  description: string | null;
  rule_set_id: string | null;
  formats: string;
}

interface RuleRow {
  id: string;
  name: string | null;
  priority: number;
  profile_id: string;
  entity_refs: string;
}

function profileOf(r: ProfileRow): MigrationProfile {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    ruleSetId: r.rule_set_id,
    formats: JSON.parse(r.formats) as FormatPolicy[],
  };
}

function ruleOf(r: RuleRow): MigrationRule {
  return {
    id: r.id,
    name: r.name,
    priority: r.priority,
    profileId: r.profile_id,
    entityRefs: JSON.parse(r.entity_refs) as string[],
  };
}

export function liveProfiles(db: Db): MigrationProfile[] {
  return (
    prepared(
      db,
      "SELECT id, name, description, rule_set_id, formats FROM migration_profiles ORDER BY position",
    ).all() as ProfileRow[]
  ).map(profileOf);
}

export function liveProfile(db: Db, id: string): MigrationProfile | undefined {
  const row = prepared(
    db,
    "SELECT id, name, description, rule_set_id, formats FROM migration_profiles WHERE id = ?",
  ).get(id) as ProfileRow | undefined;
  return row ? profileOf(row) : undefined;
}

export function liveRules(db: Db): MigrationRule[] {
  return (
    prepared(
      db,
      "SELECT id, name, priority, profile_id, entity_refs FROM migration_rules ORDER BY priority",
    ).all() as RuleRow[]
  ).map(ruleOf);
}

export function liveRule(db: Db, id: string): MigrationRule | undefined {
  const row = prepared(
    db,
    "SELECT id, name, priority, profile_id, entity_refs FROM migration_rules WHERE id = ?",
  ).get(id) as RuleRow | undefined;
  return row ? ruleOf(row) : undefined;
}

export function liveConfig(db: Db): MigrationConfig {
  return { profiles: liveProfiles(db), rules: liveRules(db) };
}

export interface DraftRow {
  id: string;
  name: string;
  description: string | null;
  config: string;
  status: "DRAFT" | "APPLIED";
  created: string;
  created_by: string;
  modified: string;
  applied: string | null;
  applied_by: string | null;
}

export function drafts(db: Db): DraftRow[] {
  return prepared(db, "SELECT * FROM migration_drafts ORDER BY seq").all() as DraftRow[];
}

export function getDraft(db: Db, id: string): DraftRow | undefined {
  return prepared(db, "SELECT * FROM migration_drafts WHERE id = ?").get(id) as DraftRow | undefined;
}

export function draftConfig(d: DraftRow): MigrationConfig {
  return JSON.parse(d.config) as MigrationConfig;
}

/** Titles, types and tags of entities, for `expand=entityMap` (missing refs are left out). */
export function entitiesByRef(
  db: Db,
  refs: readonly string[],
): Map<string, { title: string; type: string; securityTag: string; deleted: boolean }> {
  const stmt = prepared(db, "SELECT title, type, security_tag, deleted FROM entities WHERE ref = ?");
  const out = new Map<string, { title: string; type: string; securityTag: string; deleted: boolean }>();
  for (const ref of new Set(refs)) {
    const r = stmt.get(ref) as
      | { title: string; type: string; security_tag: string; deleted: number }
      | undefined;
    if (r)
      out.set(ref, { title: r.title, type: r.type, securityTag: r.security_tag, deleted: r.deleted === 1 });
  }
  return out;
}

export interface EnrichmentProfileRow {
  id: string;
  name: string;
  pii_active: number;
  created: string;
  modified: string;
}

export interface EnrichmentRuleRow {
  id: string;
  profile_id: string;
  priority: number;
  selector_settings: string;
  created: string;
}

export function enrichmentProfiles(db: Db): EnrichmentProfileRow[] {
  return prepared(
    db,
    "SELECT id, name, pii_active, created, modified FROM enrichment_profiles ORDER BY seq",
  ).all() as EnrichmentProfileRow[];
}

export function enrichmentProfile(db: Db, id: string): EnrichmentProfileRow | undefined {
  return prepared(
    db,
    "SELECT id, name, pii_active, created, modified FROM enrichment_profiles WHERE id = ?",
  ).get(id) as EnrichmentProfileRow | undefined;
}

export function enrichmentRules(db: Db): EnrichmentRuleRow[] {
  return prepared(
    db,
    "SELECT * FROM enrichment_rules ORDER BY priority, created, id",
  ).all() as EnrichmentRuleRow[];
}

export function enrichmentRule(db: Db, id: string): EnrichmentRuleRow | undefined {
  return prepared(db, "SELECT * FROM enrichment_rules WHERE id = ?").get(id) as EnrichmentRuleRow | undefined;
}

export function rulesUsingEnrichmentProfile(db: Db, profileId: string): string[] {
  return prepared(db, "SELECT id FROM enrichment_rules WHERE profile_id = ? ORDER BY priority")
    .pluck()
    .all(profileId) as string[];
}
