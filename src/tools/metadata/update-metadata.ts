import { z } from "zod";
import type { Entity, FragmentRef } from "../../api/entity.js";
import {
  applyFields,
  diffLine,
  type FieldChange,
  rootNamespace,
  standaloneDocument,
} from "../../api/metadata-build.js";
import { fingerprint } from "../../guards/fingerprint.js";
import type { ToolContext } from "../context.js";
import { type ConfirmPlan, CURATOR_ROLES, defineTool, UserInputError } from "../define.js";
import { entityRef, refParam } from "../discovery/params.js";
import { loadEntity } from "../support/entities.js";
import { OVERWRITE } from "../support/hints.js";
import { KIND_OF, KINDS } from "../support/kinds.js";
import { schemaName } from "../support/schemas.js";
import { lines } from "../support/text.js";
import {
  buildOrExplain,
  changeOut,
  fieldSchemaFor,
  findFragment,
  MAX_DIFF_LINES,
  named,
  resolveSchema,
  safeDiff,
} from "./params.js";

const value = z.string();
const input = z.object({
  ref: entityRef,
  schema: z
    .string()
    .trim()
    .min(1)
    .max(300)
    .optional()
    .describe("oai_dc (Dublin Core; the default), a metadata group's name, or a schema URI"),
  mref: refParam("Which fragment, when it has several of the schema (`get_entity`)").optional(),
  fields: z
    .record(z.string().max(100), z.union([value, z.array(value), z.null()]))
    .optional()
    .describe('Fields to set, e.g. {"creator":["A","B"],"rights":null}; null removes; others kept'),
  xml: z.string().max(200_000).optional().describe("Instead of fields: the whole new document"),
  delete: z.boolean().optional().describe("true: remove the fragment"),
});
type Args = z.infer<typeof input>;

const output = z.object({
  ref: z.string(),
  type: z.enum(KINDS),
  title: z.string(),
  schema: z.string(),
  schemaName: z.string(),
  mref: z.string().optional(),
  action: z.enum(["added", "updated", "deleted", "unchanged"]),
  changes: z.array(changeOut),
  /** Changes beyond those listed. */
  moreChanges: z.number().optional(),
});

interface Prepared {
  entity: Entity;
  schema: string;
  fragment?: FragmentRef;
  /** The fragment's document now; undefined when there is none. */
  current?: string;
  /** The document to write; undefined for a delete. */
  next?: string;
  action: "add" | "update" | "delete" | "none";
  changes: FieldChange[];
}

/** Everything the act depends on, read and computed without changing anything (the plan and the handler). */
async function prepare(args: Args, ctx: ToolContext): Promise<Prepared> {
  const modes = [args.fields !== undefined, args.xml !== undefined, args.delete === true].filter(Boolean);
  if (modes.length !== 1)
    throw new UserInputError(
      "Pass exactly one of `fields` (change some fields), `xml` (the whole document) or `delete: true`. Nothing was changed.",
    );
  if (args.fields && Object.keys(args.fields).length === 0)
    throw new UserInputError(
      "`fields` is empty: name at least one field to set or remove. Nothing was changed.",
    );
  const values = Object.values(args.fields ?? {}).flatMap((v) =>
    v === null ? [] : Array.isArray(v) ? v : [v],
  );
  if (values.length > 500 || values.some((v) => v.length > 10_000))
    throw new UserInputError("At most 500 values of at most 10,000 characters each. Nothing was changed.");
  const entity = await loadEntity(ctx, args.ref);
  const xmlNs = args.xml !== undefined ? buildOrExplain(() => rootNamespace(args.xml as string)) : undefined;
  const wanted = args.schema ?? (args.mref ? undefined : (xmlNs ?? "oai_dc"));
  const fragment = findFragment(entity, {
    ...(args.mref ? { mref: args.mref } : {}),
    ...(wanted ? { schema: wanted } : {}),
  });
  let schema: string;
  let groupId: string | undefined;
  if (fragment) schema = fragment.schema;
  else if (args.delete)
    throw new UserInputError(
      `The ${named(entity)} has no ${wanted} fragment to delete; its fragments are listed by \`get_entity\`. Nothing was changed.`,
    );
  else ({ schema, groupId } = await resolveSchema(ctx, wanted ?? "oai_dc"));

  const current = fragment ? (await ctx.entity.metadata(fragment, ctx.signal)).document : undefined;
  let next: string | undefined;
  if (args.fields) {
    const spec = await fieldSchemaFor(ctx, schema, current, groupId);
    next = buildOrExplain(() => applyFields(spec, current, args.fields ?? {}));
  } else if (args.xml !== undefined) {
    next = buildOrExplain(() => standaloneDocument(args.xml as string));
    if (xmlNs !== schema.replace(/\/+$/, "") && xmlNs !== schema)
      throw new UserInputError(
        `The document's root element is in ${xmlNs ? `namespace ${xmlNs}` : "no namespace"}, but the fragment's schema is ${schema}; declare it on the root (xmlns="${schema}") or pass the matching \`schema\`. Nothing was changed.`,
      );
  }
  const changes = safeDiff(current, next);
  const action = args.delete ? "delete" : !fragment ? "add" : next === current ? "none" : "update";
  return {
    entity,
    schema,
    ...(fragment ? { fragment } : {}),
    ...(current !== undefined ? { current } : {}),
    ...(next !== undefined ? { next } : {}),
    action,
    changes,
  };
}

function diffLines(changes: FieldChange[]): string[] {
  const shown = changes.slice(0, MAX_DIFF_LINES).map((c) => `  ${diffLine(c)}`);
  if (changes.length > MAX_DIFF_LINES) shown.push(`  … and ${changes.length - MAX_DIFF_LINES} more fields`);
  return shown;
}

export default defineTool({
  name: "update_metadata",
  title: "Change a metadata fragment",
  description:
    "Set fields of an entity's descriptive metadata (Dublin Core by default, or a metadata group) from a field map, keeping other fields; or replace it with whole XML; or delete it. Shows the diff. Overwriting or deleting asks the person first.",
  toolset: "metadata",
  requiredRoles: CURATOR_ROLES,
  inputSchema: input,
  outputSchema: output,
  annotations: OVERWRITE,
  async confirm(args, ctx: ToolContext): Promise<ConfirmPlan | undefined> {
    const p = await prepare(args, ctx);
    if (p.action !== "update" && p.action !== "delete") return undefined;
    const what = `${schemaName(p.schema)} metadata (fragment ${p.fragment?.mref}) of ${named(p.entity)}`;
    return {
      summary: p.action === "delete" ? `Delete the ${what}` : `Overwrite the ${what}`,
      details:
        p.action === "delete"
          ? ["It holds:", ...diffLines(p.changes)]
          : p.changes.length
            ? diffLines(p.changes)
            : ["The document changes, but no field value does (layout, comments or attributes)."],
      targets: [{ ref: p.entity.ref, title: p.entity.title, fingerprint: fingerprint(p.current) }],
      preview: {
        action: p.action,
        schema: p.schema,
        mref: p.fragment?.mref,
        changedFields: p.changes.length,
      },
    };
  },
  async handler(args, ctx: ToolContext) {
    const p = await prepare(args, ctx);
    const e = p.entity;
    let mref = p.fragment?.mref;
    const w = ctx.api.entityWrite;
    if (p.action === "add") {
      const added = await w.addMetadata(e.ref, e.type, p.schema, p.next as string, ctx.signal);
      mref = added.mref;
      if (!mref) {
        // A service that does not answer with the fragment: find the new one on the entity.
        const after = await ctx.entity.get(e.ref, e.type, ctx.signal);
        const before = new Set(e.fragments.map((f) => f.mref));
        mref = after.fragments.find((f) => !before.has(f.mref) && f.schema === p.schema)?.mref;
      }
    } else if (p.action === "update") {
      await w.updateMetadata(e.ref, e.type, mref as string, p.schema, p.next as string, ctx.signal);
    } else if (p.action === "delete") {
      await w.deleteMetadata(e.ref, e.type, mref as string, ctx.signal);
    }
    const action = ({ add: "added", update: "updated", delete: "deleted", none: "unchanged" } as const)[
      p.action
    ];
    const shown = p.changes.slice(0, MAX_DIFF_LINES);
    const name = schemaName(p.schema);
    const head = {
      added: `Added ${name} metadata${mref ? ` (fragment ${mref})` : ""} to ${named(e)}:`,
      updated: `Updated ${name} metadata (fragment ${mref}) of ${named(e)}:`,
      deleted: `Deleted ${name} metadata (fragment ${mref}) of ${named(e)}; it held:`,
      unchanged: `The ${name} metadata (fragment ${mref}) of ${named(e)} already says this; nothing was changed.`,
    }[action];
    return {
      structured: {
        ref: e.ref,
        type: KIND_OF[e.type],
        title: e.title,
        schema: p.schema,
        schemaName: name,
        ...(mref ? { mref } : {}),
        action,
        changes: shown,
        ...(p.changes.length > shown.length ? { moreChanges: p.changes.length - shown.length } : {}),
      },
      text: lines(
        head,
        ...(action === "unchanged" ? [] : diffLines(p.changes)),
        action === "updated" &&
          p.changes.length === 0 &&
          "  (no field value changed: layout or attributes only)",
      ),
      audit: {
        targets: [{ ref: e.ref, title: e.title }],
        ...(p.current !== undefined && action !== "unchanged"
          ? {
              previous: {
                ref: e.ref,
                entityType: e.type,
                fragment: { schema: p.schema, xml: p.current, ...(mref ? { mref } : {}) },
              },
            }
          : {}),
      },
    };
  },
});
