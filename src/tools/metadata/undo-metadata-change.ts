import { z } from "zod";
import type { Entity, EntityType } from "../../api/entity.js";
import { isNotFound } from "../../api/errors.js";
import { diffLine, type FieldChange } from "../../api/metadata-build.js";
import type { AuditEntry } from "../../guards/audit.js";
import { fingerprint } from "../../guards/fingerprint.js";
import type { ToolContext } from "../context.js";
import { type AuditFacts, type ConfirmPlan, CURATOR_ROLES, defineTool, UserInputError } from "../define.js";
import { OVERWRITE } from "../support/hints.js";
import { KIND_OF, KINDS } from "../support/kinds.js";
import { schemaName } from "../support/schemas.js";
import { clip, lines } from "../support/text.js";
import { buildOrExplain, changeOut, MAX_DIFF_LINES, named, safeDiff } from "./params.js";

const input = z.object({
  id: z
    .string()
    .trim()
    .regex(/^[0-9a-f-]{36}$/i, "an audit entry id is a UUID (the answer said `Audit entry <id>`)")
    .describe("Audit entry id, from the answer of `update_metadata` or `update_entity`"),
});

const output = z.object({
  ref: z.string(),
  type: z.enum(KINDS),
  title: z.string(),
  restored: z.enum(["fragment", "title"]),
  /** The audit entry undone. */
  undone: z.string(),
  schema: z.string().optional(),
  mref: z.string().optional(),
  changes: z.array(changeOut),
});

type Previous = NonNullable<AuditFacts["previous"]>;

interface Prepared {
  entry: AuditEntry;
  previous: Previous;
  entity: Entity;
  /** What is there now: the fragment's XML (undefined when it is gone) or title + description. */
  fragmentNow?: { mref: string; xml: string };
  fingerprint: string;
  changes: FieldChange[];
}

async function prepare(id: string, ctx: ToolContext): Promise<Prepared> {
  const entry = await ctx.audit.find(id);
  if (!entry) throw new UserInputError(`The audit log has no entry ${id}. Nothing was changed.`);
  const previous = entry.previous;
  if (!previous || entry.outcome !== "done" || (!previous.fragment && previous.title === undefined))
    throw new UserInputError(
      `Audit entry ${id} (${entry.tool}, ${entry.outcome}) kept no earlier state to put back${entry.tool === "update_metadata" ? " (a fragment that was added is removed with `update_metadata` and `delete: true`)" : ""}. Nothing was changed.`,
    );
  let entity: Entity;
  try {
    entity = await ctx.entity.get(previous.ref, previous.entityType as EntityType, ctx.signal);
  } catch (err) {
    if (isNotFound(err))
      throw new UserInputError(
        `The ${KIND_OF[previous.entityType]} ${previous.ref} of audit entry ${id} no longer exists. Nothing was changed.`,
      );
    throw err;
  }
  if (previous.fragment) {
    // The fragment changed; an entry that names none (written by another tool) means the one of its schema.
    const schema = previous.fragment.schema;
    const sameSchema = entity.fragments.filter((x) => x.schema === schema);
    const f = previous.fragment.mref
      ? entity.fragments.find((x) => x.mref === previous.fragment?.mref)
      : sameSchema.length === 1
        ? sameSchema[0]
        : undefined;
    const xml = f ? (await ctx.entity.metadata(f, ctx.signal)).document : undefined;
    return {
      entry,
      previous,
      entity,
      ...(f && xml !== undefined ? { fragmentNow: { mref: f.mref, xml } } : {}),
      fingerprint: fingerprint(xml),
      changes: safeDiff(xml, previous.fragment.xml),
    };
  }
  const changes: FieldChange[] = [];
  const was = { title: previous.title ?? entity.title, description: previous.description ?? "" };
  if (was.title !== entity.title)
    changes.push({ field: "title", before: [entity.title], after: [was.title] });
  if (was.description !== (entity.description ?? ""))
    changes.push({
      field: "description",
      before: entity.description ? [entity.description] : [],
      after: was.description ? [was.description] : [],
    });
  return {
    entry,
    previous,
    entity,
    fingerprint: fingerprint(entity.title, entity.description),
    changes,
  };
}

const when = (entry: AuditEntry) => `${entry.tool} by ${entry.user} at ${entry.time}`;

export default defineTool({
  name: "undo_metadata_change",
  title: "Undo a metadata change",
  description:
    "Put back a metadata fragment, title or description as it was before a change recorded in the audit log (the id an answer gave as `Audit entry …`). Asks the person first.",
  toolset: "metadata",
  // Only where there is a log to undo from (PRESERVATION_AUDIT_LOG, or the shared trail of PRESERVATION_STATE_URL).
  requires: "audit-log",
  requiredRoles: CURATOR_ROLES,
  inputSchema: input,
  outputSchema: output,
  annotations: OVERWRITE,
  async confirm(args, ctx: ToolContext): Promise<ConfirmPlan> {
    const p = await prepare(args.id, ctx);
    const what = p.previous.fragment
      ? `the ${schemaName(p.previous.fragment.schema)} metadata of ${named(p.entity)}${p.fragmentNow ? "" : " (deleted since: it comes back as a new fragment)"}`
      : `the title and description of ${named(p.entity)}`;
    const shown = p.changes.slice(0, MAX_DIFF_LINES).map((c) => `  ${diffLine(c)}`);
    if (p.changes.length > shown.length) shown.push(`  … and ${p.changes.length - shown.length} more fields`);
    return {
      summary: `Put back ${what} as before ${when(p.entry)}`,
      details: shown.length ? shown : ["No field value differs from what is there now."],
      targets: [{ ref: p.entity.ref, title: p.entity.title, fingerprint: p.fingerprint }],
      preview: { entry: p.entry.id, changedFields: p.changes.length },
    };
  },
  async handler(args, ctx: ToolContext) {
    const p = await prepare(args.id, ctx);
    const e = p.entity;
    const w = ctx.api.entityWrite;
    const undone = p.entry.id;
    const diff = lines(...p.changes.slice(0, MAX_DIFF_LINES).map((c) => `  ${diffLine(c)}`));
    const base = { ref: e.ref, type: KIND_OF[e.type], changes: p.changes.slice(0, MAX_DIFF_LINES) };
    const targets = [{ ref: e.ref, title: e.title }];

    if (p.previous.fragment) {
      const { schema, xml } = p.previous.fragment;
      let mref = p.fragmentNow?.mref;
      if (mref)
        await buildOrExplain(() => w.updateMetadata(e.ref, e.type, mref as string, schema, xml, ctx.signal));
      else mref = (await buildOrExplain(() => w.addMetadata(e.ref, e.type, schema, xml, ctx.signal))).mref;
      return {
        structured: {
          ...base,
          title: e.title,
          restored: "fragment" as const,
          undone,
          schema,
          ...(mref ? { mref } : {}),
        },
        text: lines(
          `Put back the ${schemaName(schema)} metadata${mref ? ` (fragment ${mref})` : ""} of ${named(e)} as it was before ${when(p.entry)}:`,
          diff || "  (no field value differed)",
        ),
        audit: {
          targets,
          ...(p.fragmentNow
            ? {
                previous: {
                  ref: e.ref,
                  entityType: e.type,
                  fragment: { schema, xml: p.fragmentNow.xml, mref: p.fragmentNow.mref },
                },
              }
            : {}),
        },
      };
    }
    const title = p.previous.title ?? e.title;
    const description = p.previous.description ?? "";
    const { description: _now, ...rest } = e;
    const saved = await buildOrExplain(() =>
      w.save({ ...rest, title, ...(description ? { description } : {}) }, ctx.signal),
    );
    return {
      structured: { ...base, title: saved.title, restored: "title" as const, undone },
      text: lines(
        `Put back the title and description of ${named(saved)} as they were before ${when(p.entry)}:`,
        diff || `  (title “${clip(saved.title, 200)}” and description were already so)`,
      ),
      audit: {
        targets: [{ ref: e.ref, title: saved.title }],
        previous: { ref: e.ref, entityType: e.type, title: e.title, description: e.description ?? "" },
      },
    };
  },
});
