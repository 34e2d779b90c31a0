import { randomUUID } from "node:crypto";
import { recordConfigEvent } from "../config-events/write.js";
import type { Db } from "../db.js";
import { prepared } from "../statements.js";
import type { MigrationConfig } from "./migration-config.js";
import { type DraftRow, enrichmentRules, liveConfig } from "./read.js";

/**
 * Writes of the Settings API. Each change and its config event (category SETTINGS) are one transaction,
 * so a change is never stored without its record, nor recorded without being stored.
 */

/** How a change is attributed: who, and when (the service's clock). */
export interface Change {
  username: string;
  at: string;
}

/** Replaces the live migration configuration with `config` (rules first: they refer to the profiles). */
function replaceLiveConfig(db: Db, config: MigrationConfig, at: string): void {
  prepared(db, "DELETE FROM migration_rules").run();
  prepared(db, "DELETE FROM migration_profiles").run();
  const addProfile = prepared(
    db,
    "INSERT INTO migration_profiles (id, position, name, description, rule_set_id, formats, modified) VALUES (?, ?, ?, ?, ?, ?, ?)",
  );
  config.profiles.forEach((p, i) => {
    addProfile.run(p.id, i + 1, p.name, p.description, p.ruleSetId, JSON.stringify(p.formats), at);
  });
  const addRule = prepared(
    db,
    "INSERT INTO migration_rules (id, priority, name, profile_id, entity_refs, modified) VALUES (?, ?, ?, ?, ?, ?)",
  );
  for (const r of config.rules)
    addRule.run(r.id, r.priority, r.name, r.profileId, JSON.stringify(r.entityRefs), at);
}

function counts(c: MigrationConfig): string {
  return `${c.profiles.length} profile${c.profiles.length === 1 ? "" : "s"}, ${c.rules.length} rule${c.rules.length === 1 ? "" : "s"}`;
}

/** PUT /migration/config: the whole live configuration at once. */
export function setLiveConfig(db: Db, config: MigrationConfig, ch: Change): void {
  db.transaction(() => {
    const before = liveConfig(db);
    replaceLiveConfig(db, config, ch.at);
    recordConfigEvent(db, {
      username: ch.username,
      at: ch.at,
      category: "SETTINGS",
      commandType: "UPDATE",
      subject: "migration configuration",
      summary: `Replaced the migration configuration (${counts(before)} → ${counts(config)})`,
      details: { before: counts(before), after: config },
    });
  })();
}

export function createDraft(
  db: Db,
  d: { name: string; description: string | null; config: MigrationConfig; id?: string },
  ch: Change,
): string {
  const id = d.id ?? randomUUID();
  db.transaction(() => {
    prepared(
      db,
      `INSERT INTO migration_drafts (id, seq, name, description, config, status, created, created_by, modified)
       VALUES (?, (SELECT coalesce(max(seq), 0) + 1 FROM migration_drafts), ?, ?, ?, 'DRAFT', ?, ?, ?)`,
    ).run(id, d.name, d.description, JSON.stringify(d.config), ch.at, ch.username, ch.at);
    recordConfigEvent(db, {
      username: ch.username,
      at: ch.at,
      category: "SETTINGS",
      commandType: "CREATE",
      subject: `migration draft ${id}`,
      summary: `Created migration draft "${d.name}" (${counts(d.config)})`,
      details: { draftId: id, name: d.name, config: d.config },
    });
  })();
  return id;
}

export function updateDraft(
  db: Db,
  id: string,
  d: { name: string; description: string | null; config: MigrationConfig },
  ch: Change,
): void {
  db.transaction(() => {
    prepared(
      db,
      "UPDATE migration_drafts SET name = ?, description = ?, config = ?, modified = ? WHERE id = ?",
    ).run(d.name, d.description, JSON.stringify(d.config), ch.at, id);
    recordConfigEvent(db, {
      username: ch.username,
      at: ch.at,
      category: "SETTINGS",
      commandType: "UPDATE",
      subject: `migration draft ${id}`,
      summary: `Updated migration draft "${d.name}" (${counts(d.config)})`,
      details: { draftId: id, name: d.name, config: d.config },
    });
  })();
}

export function deleteDraft(db: Db, draft: DraftRow, ch: Change): void {
  db.transaction(() => {
    prepared(db, "DELETE FROM migration_drafts WHERE id = ?").run(draft.id);
    recordConfigEvent(db, {
      username: ch.username,
      at: ch.at,
      category: "SETTINGS",
      commandType: "DELETE",
      subject: `migration draft ${draft.id}`,
      summary: `Deleted migration draft "${draft.name}" (${draft.status})`,
      details: { draftId: draft.id, name: draft.name, status: draft.status },
    });
  })();
}

/** Makes a draft the live configuration; the draft is kept, marked APPLIED. */
export function applyDraft(db: Db, draft: DraftRow, config: MigrationConfig, ch: Change): void {
  db.transaction(() => {
    const before = liveConfig(db);
    replaceLiveConfig(db, config, ch.at);
    prepared(
      db,
      "UPDATE migration_drafts SET status = 'APPLIED', applied = ?, applied_by = ? WHERE id = ?",
    ).run(ch.at, ch.username, draft.id);
    recordConfigEvent(db, {
      username: ch.username,
      at: ch.at,
      category: "SETTINGS",
      commandType: "APPLY",
      subject: `migration draft ${draft.id}`,
      summary: `Applied migration draft "${draft.name}": the migration configuration is now ${counts(config)} (was ${counts(before)})`,
      details: { draftId: draft.id, name: draft.name, before: counts(before), after: counts(config) },
    });
  })();
}

export function createEnrichmentProfile(
  db: Db,
  p: { name: string; piiActive: boolean; id?: string },
  ch: Change,
): string {
  const id = p.id ?? randomUUID();
  db.transaction(() => {
    prepared(
      db,
      `INSERT INTO enrichment_profiles (id, seq, name, pii_active, created, modified)
       VALUES (?, (SELECT coalesce(max(seq), 0) + 1 FROM enrichment_profiles), ?, ?, ?, ?)`,
    ).run(id, p.name, p.piiActive ? 1 : 0, ch.at, ch.at);
    recordConfigEvent(db, {
      username: ch.username,
      at: ch.at,
      category: "SETTINGS",
      commandType: "CREATE",
      subject: `metadata enrichment profile ${id}`,
      summary: `Created metadata enrichment profile "${p.name}" (PII detection ${p.piiActive ? "on" : "off"})`,
      details: { profileId: id, name: p.name, piiActive: p.piiActive },
    });
  })();
  return id;
}

export function updateEnrichmentProfile(
  db: Db,
  id: string,
  p: { name: string; piiActive: boolean },
  ch: Change,
): void {
  db.transaction(() => {
    prepared(db, "UPDATE enrichment_profiles SET name = ?, pii_active = ?, modified = ? WHERE id = ?").run(
      p.name,
      p.piiActive ? 1 : 0,
      ch.at,
      id,
    );
    recordConfigEvent(db, {
      username: ch.username,
      at: ch.at,
      category: "SETTINGS",
      commandType: "UPDATE",
      subject: `metadata enrichment profile ${id}`,
      summary: `Updated metadata enrichment profile "${p.name}" (PII detection ${p.piiActive ? "on" : "off"})`,
      details: { profileId: id, name: p.name, piiActive: p.piiActive },
    });
  })();
}

export function deleteEnrichmentProfile(db: Db, id: string, name: string, ch: Change): void {
  db.transaction(() => {
    prepared(db, "DELETE FROM enrichment_profiles WHERE id = ?").run(id);
    recordConfigEvent(db, {
      username: ch.username,
      at: ch.at,
      category: "SETTINGS",
      commandType: "DELETE",
      subject: `metadata enrichment profile ${id}`,
      summary: `Deleted metadata enrichment profile "${name}"`,
      details: { profileId: id, name },
    });
  })();
}

/**
 * Adds a rule at `priority` (1 = first); rules already at that priority or after move down one, so
 * priorities stay 1, 2, 3… without gaps. A priority past the end puts the rule last.
 */
export function createEnrichmentRule(
  db: Db,
  r: { profileId: string; priority: number; selectorSettings: Record<string, unknown>; id?: string },
  ch: Change,
): { id: string; priority: number } {
  const id = r.id ?? randomUUID();
  let priority = r.priority;
  db.transaction(() => {
    const existing = enrichmentRules(db);
    priority = Math.min(priority, existing.length + 1);
    const setPriority = prepared(db, "UPDATE enrichment_rules SET priority = ? WHERE id = ?");
    for (const e of existing) if (e.priority >= priority) setPriority.run(e.priority + 1, e.id);
    prepared(
      db,
      "INSERT INTO enrichment_rules (id, profile_id, priority, selector_settings, created) VALUES (?, ?, ?, ?, ?)",
    ).run(id, r.profileId, priority, JSON.stringify(r.selectorSettings), ch.at);
    recordConfigEvent(db, {
      username: ch.username,
      at: ch.at,
      category: "SETTINGS",
      commandType: "CREATE",
      subject: `metadata enrichment rule ${id}`,
      summary: `Added metadata enrichment rule ${id} at priority ${priority} (profile ${r.profileId})`,
      details: { ruleId: id, profileId: r.profileId, priority, selectorSettings: r.selectorSettings },
    });
  })();
  return { id, priority };
}

/** Removes a rule; those after it move up one. */
export function deleteEnrichmentRule(db: Db, id: string, ch: Change): void {
  db.transaction(() => {
    const rule = prepared(db, "SELECT profile_id, priority FROM enrichment_rules WHERE id = ?").get(id) as
      | { profile_id: string; priority: number }
      | undefined;
    if (!rule) return;
    prepared(db, "DELETE FROM enrichment_rules WHERE id = ?").run(id);
    prepared(db, "UPDATE enrichment_rules SET priority = priority - 1 WHERE priority > ?").run(rule.priority);
    recordConfigEvent(db, {
      username: ch.username,
      at: ch.at,
      category: "SETTINGS",
      commandType: "DELETE",
      subject: `metadata enrichment rule ${id}`,
      summary: `Deleted metadata enrichment rule ${id} (priority ${rule.priority}, profile ${rule.profile_id})`,
      details: { ruleId: id, profileId: rule.profile_id, priority: rule.priority },
    });
  })();
}
