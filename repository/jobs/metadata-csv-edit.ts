import { isUuid } from "../http/params.js";
import type { CsvColumn, CsvEditPlan, CsvRow } from "../metadata-groups/csv.js";
import type { MetadataGroup } from "../metadata-groups/definition.js";
import {
  type DocumentResult,
  mergedGroupDocument,
  newGroupDocument,
} from "../metadata-groups/group-document.js";
import type { ActionItemRow } from "../store/actions/read.js";
import { recordItems } from "../store/actions/write.js";
import { getUser, Permission, Permissions } from "../store/auth.js";
import type { Db } from "../store/db.js";
import { EventType, recordChange } from "../store/events/write.js";
import { addFragment, updateFragment } from "../store/metadata/write.js";
import { csvTarget, groupBySchemaUri, groupFragment, recordedRows } from "../store/metadata-groups/read.js";
import type { ActionKind } from "./action-kind.js";

/**
 * A metadata CSV edit: each row names an entity and gives values for fields of metadata groups. For each
 * group with values in the row, the entity's document of that group is created (when it has none) or
 * updated (the given fields replaced, the others kept). Each row is one transaction with its item and
 * its event, so a refused row (unknown or malformed reference, no Update Metadata permission, a value
 * that does not fit its field) changes nothing and the other rows go on. Rows are items numbered from 1:
 * a resumed action skips the numbers already recorded (a reference may appear in several rows).
 */

/** The action's stored parameters: the plan read from the CSV when it was submitted. */
export type CsvEditParams = CsvEditPlan;

/** Rows applied between two pauses (each still its own transaction). */
const BATCH = 25;

export const METADATA_CSV_EDIT: ActionKind = {
  kind: "metadata-csv-edit",
  path: "metadata-csv-edits",
  title: "Metadata CSV edit: group metadata added or updated from a CSV file, row by row",
  async run(run) {
    const { db } = run.svc;
    const plan = run.params as CsvEditParams;
    const recorded = recordedRows(db, run.action.id);
    const pending = plan.rows.filter((r) => !recorded.has(r.seq));
    for (let i = 0; i < pending.length; i += BATCH) {
      // The submitter's rights and the groups are read again for every batch, so a change to either
      // applies from the next batch on, never half-way through a row.
      const ctx: RowContext = {
        db,
        actionId: run.action.id,
        username: run.action.username,
        permissions: permissionsOf(db, run.action.username),
        groups: new Map(),
        columns: plan.columns,
        now: run.now(),
      };
      for (const row of pending.slice(i, i + BATCH)) {
        db.transaction(() => applyRow(ctx, row))();
      }
      await run.pause();
    }
    return undefined;
  },
};

interface RowContext {
  db: Db;
  actionId: string;
  username: string;
  permissions: Permissions;
  /** Groups by schema URI, looked up once per batch (undefined = no longer exists). */
  groups: Map<string, MetadataGroup | undefined>;
  columns: readonly CsvColumn[];
  now: string;
}

/** What the submitter may do now; a removed or disabled account may do nothing. */
function permissionsOf(db: Db, username: string): Permissions {
  const user = getUser(db, username);
  return new Permissions(db, user?.enabled ? user.roles : []);
}

function record(ctx: RowContext, row: CsvRow, item: Omit<ActionItemRow, "seq">): void {
  recordItems(ctx.db, ctx.actionId, [{ seq: row.seq, ...item }], ctx.now);
}

function groupOf(ctx: RowContext, schemaUri: string): MetadataGroup | undefined {
  if (!ctx.groups.has(schemaUri)) ctx.groups.set(schemaUri, groupBySchemaUri(ctx.db, schemaUri));
  return ctx.groups.get(schemaUri);
}

/** The row's non-empty values, by group schema URI, then field id (columns keep the file's order). */
function valuesByGroup(ctx: RowContext, row: CsvRow): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>();
  ctx.columns.forEach((col, i) => {
    const v = row.values[i] ?? "";
    if (v === "") return;
    let fields = out.get(col.schemaUri);
    if (!fields) {
      fields = new Map();
      out.set(col.schemaUri, fields);
    }
    fields.set(col.field, v);
  });
  return out;
}

interface PlannedWrite {
  group: MetadataGroup;
  /** The fragment to update; undefined = add a new one. */
  existing: string | undefined;
  doc: Extract<DocumentResult, { ok: true }>;
}

/** What a row comes to once checked: refused (with the reason), nothing to do, or these writes. */
type RowPlan =
  | { kind: "refuse"; ref: string | null; reason: string }
  | { kind: "empty"; ref: string }
  | { kind: "write"; ref: string; writes: PlannedWrite[] };

/** Applies one row inside its transaction: checks everything first, then writes, item and event. */
function applyRow(ctx: RowContext, row: CsvRow): void {
  const plan = planRow(ctx, row);
  if (plan.kind === "refuse") {
    record(ctx, row, {
      entity_ref: plan.ref,
      outcome: "failed",
      message: `Line ${row.line}: ${plan.reason}`,
    });
  } else if (plan.kind === "empty") {
    record(ctx, row, {
      entity_ref: plan.ref,
      outcome: "skipped",
      message: `Line ${row.line}: no values for entity ${plan.ref}; nothing changed`,
    });
  } else {
    write(ctx, row, plan.ref, plan.writes);
  }
}

/** Checks a row against the store as it is now, changing nothing. */
function planRow(ctx: RowContext, row: CsvRow): RowPlan {
  const refuse = (ref: string | null, reason: string): RowPlan => ({ kind: "refuse", ref, reason });
  if (row.problem) return refuse(null, row.problem);
  if (row.ref === "") {
    return refuse(null, "no entity reference in the PRESERVICA_ENTITY_REF column; give the entity's ref");
  }
  if (!isUuid(row.ref)) {
    return refuse(
      null,
      `the entity reference "${row.ref}" is not a UUID; references look like 7f3e2a10-1c2b-4d5e-8f90-0a1b2c3d4e5f`,
    );
  }
  const ref = row.ref.toLowerCase();
  const target = csvTarget(ctx.db, ref);
  if (!target || !ctx.permissions.permits(target.security_tag, Permission.READ_METADATA)) {
    return refuse(ref, `no entity ${ref} exists (or ${ctx.username} may not read it)`);
  }
  if (target.deletion_id) {
    return refuse(ref, `entity ${ref} is in the recycle bin; recover it before editing its metadata`);
  }
  if (target.type === "CO") {
    return refuse(ref, `entity ${ref} is a content object; group metadata belongs on its asset or folder`);
  }
  if (!ctx.permissions.permits(target.security_tag, Permission.UPDATE_METADATA)) {
    return refuse(
      ref,
      `${ctx.username} lacks the ${Permission.UPDATE_METADATA} permission on security tag "${target.security_tag}" of entity ${ref}`,
    );
  }
  const byGroup = valuesByGroup(ctx, row);
  if (byGroup.size === 0) return { kind: "empty", ref };
  const writes: PlannedWrite[] = [];
  for (const [schemaUri, values] of byGroup) {
    const group = groupOf(ctx, schemaUri);
    if (!group) return refuse(ref, `the metadata group ${schemaUri} no longer exists`);
    const missing = [...values.keys()].filter((id) => !group.fields.some((f) => f.id === id));
    if (missing.length > 0) {
      return refuse(ref, `group "${group.name}" no longer has the field(s) ${missing.join(", ")}`);
    }
    const existing = groupFragment(ctx.db, ref, schemaUri);
    const doc = existing
      ? mergedGroupDocument(group, existing.content, values)
      : newGroupDocument(group, values);
    if (!doc.ok) return refuse(ref, doc.problem);
    writes.push({ group, existing: existing?.mref, doc });
  }
  return { kind: "write", ref, writes };
}

/** Writes a checked row's documents, its event (when something changed) and its item. */
function write(ctx: RowContext, row: CsvRow, ref: string, writes: PlannedWrite[]): void {
  const done: string[] = [];
  let updated = false;
  for (const w of writes) {
    const fields = w.doc.changed.join(", ");
    if (w.existing === undefined) {
      const mref = addFragment(ctx.db, ref, w.group.schemaUri, w.doc.xml, { date: ctx.now });
      done.push(`added ${w.group.schemaUri} (fragment ${mref}; fields ${fields})`);
    } else if (w.doc.changed.length > 0) {
      updateFragment(ctx.db, w.existing, w.group.schemaUri, w.doc.xml, ctx.now);
      updated = true;
      done.push(`updated ${w.group.schemaUri} (fragment ${w.existing}; fields ${fields})`);
    } else {
      done.push(`${w.group.schemaUri} already had these values (fragment ${w.existing})`);
    }
  }
  const changed = writes.some((w) => w.existing === undefined || w.doc.changed.length > 0);
  const summary = `Line ${row.line}: ${done.join("; ")}`;
  if (changed) {
    recordChange(ctx.db, {
      username: ctx.username,
      date: ctx.now,
      type: EventType.MODIFIED,
      commandType: updated ? "UpdateMetadataFromCsv" : "AddMetadataFromCsv",
      entityRefs: [ref],
      detail: `Metadata CSV edit ${ctx.actionId}, ${summary}`,
    });
  }
  record(ctx, row, { entity_ref: ref, outcome: changed ? "done" : "skipped", message: summary });
}
