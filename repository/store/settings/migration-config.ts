import { randomUUID } from "node:crypto";
import type { Db } from "../db.js";
import { prepared } from "../statements.js";

/**
 * The form of a migration configuration (the live policy, and every draft): profiles say what to do with
 * which file formats; rules say where, and which profile applies there. Checked whole, against the store
 * (every entity ref a live folder or asset), before anything is written. What is wrong is thrown as
 * InvalidSettings, whose message says what to send instead.
 */

export const FORMAT_ACTIONS = ["MIGRATE", "RETAIN"] as const;
export type FormatAction = (typeof FORMAT_ACTIONS)[number];

export interface FormatPolicy {
  /** PRONOM id of the source format, e.g. fmt/18. */
  puid: string;
  action: FormatAction;
  /** For MIGRATE: the PRONOM id of the format to migrate to. */
  targetPuid: string | null;
}

export interface MigrationProfile {
  id: string;
  name: string;
  description: string | null;
  /** A rule set of the preservation registry (PAR `/rulesets`), when the profile follows one. */
  ruleSetId: string | null;
  formats: FormatPolicy[];
}

export interface MigrationRule {
  id: string;
  name: string | null;
  /** 1 = evaluated first; the first rule whose scope holds an asset decides for it. */
  priority: number;
  profileId: string;
  /** Folders (with everything under them) and assets; empty = all content. */
  entityRefs: string[];
}

export interface MigrationConfig {
  profiles: MigrationProfile[];
  rules: MigrationRule[];
}

export const LIMITS = {
  profiles: 200,
  rules: 1000,
  formatsPerProfile: 200,
  refsPerRule: 500,
  name: 200,
  description: 2000,
  id: 100,
} as const;

const ID = /^[A-Za-z0-9][A-Za-z0-9._:-]*$/;
const PUID = /^(?:x-)?fmt\/\d{1,6}$/;
const REF = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const CONFIG_EXAMPLE =
  '{"profiles":[{"id":"pdf-to-pdfa","name":"PDF to PDF/A","formats":[{"puid":"fmt/18","action":"MIGRATE","targetPuid":"fmt/95"}]}],"rules":[{"id":"minutes","priority":1,"profileId":"pdf-to-pdfa","entityRefs":["<folder ref>"]}]}';

/** A request's settings that cannot be stored as given; the route answers 400 with the message. */
export class InvalidSettings extends Error {}

export function bad(message: string): never {
  throw new InvalidSettings(message);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function text(v: unknown, what: string, max: number, required: boolean): string | null {
  if (v === undefined || v === null || (typeof v === "string" && v.trim() === "" && !required)) {
    if (required) bad(`${what} is missing; give it as a string`);
    return null;
  }
  if (typeof v !== "string") bad(`${what} must be a string, got ${JSON.stringify(v).slice(0, 60)}`);
  const s = v.trim();
  if (s === "") bad(`${what} is empty; give it as a non-empty string`);
  if (s.length > max) bad(`${what} is longer than ${max} characters; shorten it`);
  return s;
}

function idOf(v: unknown, what: string): string {
  if (v === undefined || v === null || v === "") return randomUUID();
  if (typeof v !== "string" || v.length > LIMITS.id || !ID.test(v)) {
    bad(
      `${what} must be up to ${LIMITS.id} letters, digits, dots, dashes, colons or underscores, got ${JSON.stringify(v).slice(0, 60)}; leave it out to have one made`,
    );
  }
  return v;
}

function arrayOf(v: unknown, what: string, max: number): unknown[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) bad(`${what} must be a JSON array`);
  if (v.length > max) bad(`${what} has ${v.length} entries; at most ${max} are allowed`);
  return v;
}

function formatPolicy(v: unknown, where: string): FormatPolicy {
  if (!isObject(v))
    bad(`${where} must be an object such as {"puid":"fmt/18","action":"MIGRATE","targetPuid":"fmt/95"}`);
  const puid = text(v.puid, `${where}.puid`, 20, true) as string;
  if (!PUID.test(puid)) bad(`${where}.puid must be a PRONOM id such as fmt/18 or x-fmt/111, got "${puid}"`);
  const rawAction = text(v.action, `${where}.action`, 20, true) as string;
  const action = FORMAT_ACTIONS.find((a) => a === rawAction.toUpperCase());
  if (!action) bad(`${where}.action must be one of ${FORMAT_ACTIONS.join(", ")}, got "${rawAction}"`);
  const targetPuid = text(v.targetPuid, `${where}.targetPuid`, 20, false);
  if (action === "MIGRATE") {
    if (!targetPuid)
      bad(`${where} migrates ${puid} but names no targetPuid; give the PRONOM id to migrate to`);
    if (!PUID.test(targetPuid))
      bad(`${where}.targetPuid must be a PRONOM id such as fmt/95, got "${targetPuid}"`);
    if (targetPuid === puid)
      bad(`${where} migrates ${puid} to itself; name another targetPuid, or use RETAIN`);
  } else if (targetPuid) {
    bad(`${where} retains ${puid} and so takes no targetPuid; leave targetPuid out or use MIGRATE`);
  }
  return { puid, action, targetPuid: action === "MIGRATE" ? targetPuid : null };
}

function profileOf(v: unknown, where: string): MigrationProfile {
  if (!isObject(v))
    bad(`${where} must be an object with id, name and formats; for example ${CONFIG_EXAMPLE}`);
  const formats = arrayOf(v.formats, `${where}.formats`, LIMITS.formatsPerProfile).map((f, i) =>
    formatPolicy(f, `${where}.formats[${i}]`),
  );
  const seen = new Set<string>();
  for (const f of formats) {
    if (seen.has(f.puid)) bad(`${where} names format ${f.puid} twice; give each format once`);
    seen.add(f.puid);
  }
  return {
    id: idOf(v.id, `${where}.id`),
    name: text(v.name, `${where}.name`, LIMITS.name, true) as string,
    description: text(v.description, `${where}.description`, LIMITS.description, false),
    ruleSetId:
      v.ruleSetId === undefined || v.ruleSetId === null ? null : idOf(v.ruleSetId, `${where}.ruleSetId`),
    formats,
  };
}

function priorityOf(v: unknown, where: string): number | null {
  if (v === undefined || v === null || v === "") return null;
  const n = typeof v === "string" && /^\d{1,6}$/.test(v.trim()) ? Number(v) : v;
  if (typeof n !== "number" || !Number.isInteger(n) || n < 1 || n > 100_000) {
    bad(`${where}.priority must be a whole number from 1 to 100000, got ${JSON.stringify(v).slice(0, 40)}`);
  }
  return n;
}

/**
 * A complete configuration from a request body (`{profiles, rules}`), checked whole: ids unique, every
 * rule's profile among the profiles, every entity ref a live folder or asset. Rules are ordered by their
 * priority (or their place in the array) and numbered 1, 2, 3… in that order.
 */
export function parseMigrationConfig(db: Db, body: Record<string, unknown>): MigrationConfig {
  const profiles = arrayOf(body.profiles, "profiles", LIMITS.profiles).map((p, i) =>
    profileOf(p, `profiles[${i}]`),
  );
  const profileIds = new Set<string>();
  for (const p of profiles) {
    if (profileIds.has(p.id)) bad(`Profile id "${p.id}" is given twice; give each profile its own id`);
    profileIds.add(p.id);
  }
  const rawRules = arrayOf(body.rules, "rules", LIMITS.rules);
  const ruleIds = new Set<string>();
  const rules = rawRules.map((v, i) => {
    const where = `rules[${i}]`;
    if (!isObject(v))
      bad(`${where} must be an object with profileId and entityRefs; for example ${CONFIG_EXAMPLE}`);
    const id = idOf(v.id, `${where}.id`);
    if (ruleIds.has(id)) bad(`Rule id "${id}" is given twice; give each rule its own id`);
    ruleIds.add(id);
    const profileId = text(v.profileId, `${where}.profileId`, LIMITS.id, true) as string;
    if (!profileIds.has(profileId)) {
      bad(
        `${where}.profileId "${profileId}" is not one of this configuration's profiles (${[...profileIds].join(", ") || "none"}); a configuration is complete: give the profile in profiles too`,
      );
    }
    const refs = arrayOf(v.entityRefs, `${where}.entityRefs`, LIMITS.refsPerRule).map((r) => {
      if (typeof r !== "string" || !REF.test(r.trim())) {
        bad(`${where}.entityRefs must hold entity references (UUIDs), got ${JSON.stringify(r).slice(0, 60)}`);
      }
      return r.trim().toLowerCase();
    });
    return {
      rule: {
        id,
        name: text(v.name, `${where}.name`, LIMITS.name, false),
        priority: 0,
        profileId,
        entityRefs: [...new Set(refs)],
      },
      order: priorityOf(v.priority, where) ?? i + 1,
      index: i,
    };
  });
  checkEntityRefs(
    db,
    rules.flatMap((r) => r.rule.entityRefs),
  );
  rules.sort((a, b) => a.order - b.order || a.index - b.index);
  return { profiles, rules: rules.map((r, i) => ({ ...r.rule, priority: i + 1 })) };
}

/** 400 unless every ref is a live folder or asset (a rule on a content object or a deleted entity means nothing). */
function checkEntityRefs(db: Db, refs: string[]): void {
  const stmt = prepared(db, "SELECT type, deleted FROM entities WHERE ref = ?");
  for (const ref of new Set(refs)) {
    const row = stmt.get(ref) as { type: string; deleted: number } | undefined;
    if (!row) bad(`Entity ${ref} does not exist; rules name folders or assets by reference`);
    if (row.deleted) bad(`Entity ${ref} is in the recycle bin; rules name live folders or assets`);
    if (row.type === "CO")
      bad(`Entity ${ref} is a content object; rules name folders or assets (its asset instead)`);
  }
}
