import { z } from "zod";
import type { GroupInput, MetadataGroupSummary } from "../../api/metadata-csv.js";
import { fingerprint } from "../../guards/fingerprint.js";
import type { ToolContext } from "../context.js";
import { type ConfirmPlan, defineTool, MANAGER_ROLES, UserInputError } from "../define.js";
import { DESTRUCTIVE } from "../support/hints.js";
import { clip, lines } from "../support/text.js";
import { absentTarget, changesPlan } from "../support/writes.js";
import { groupLines, groupShape, groupView } from "./params.js";

/**
 * Metadata groups made, changed and deleted from the assistant (managers and administrators, as the service
 * allows). Every action shows what it will do and is confirmed first; the audit log names the group. An
 * update sends each field back as the service gave it, so properties this tool does not set are kept.
 */

const MAX_FIELDS = 100;
const FIELD_ID = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

const fieldInput = z.object({
  id: z
    .string()
    .trim()
    .regex(FIELD_ID, "letters, digits, _ - . starting with a letter or _")
    .max(100)
    .describe("XML element name, e.g. box_number"),
  name: z.string().trim().min(1).max(200).optional().describe("Label; default the id"),
  type: z.enum(["STRING", "LONGSTRING", "DATE", "NUMBER"]).optional().describe("Default STRING"),
  values: z.array(z.string().trim().min(1).max(200)).max(200).optional().describe("Allowed values"),
  repeatable: z.boolean().optional().describe("Several values allowed"),
});

const input = z.object({
  action: z.enum(["create", "update", "delete"]).describe("update changes only what is given"),
  group: z
    .string()
    .trim()
    .min(1)
    .max(300)
    .optional()
    .describe("update, delete: group name or id (`list_metadata_groups`)"),
  name: z.string().trim().min(1).max(200).optional().describe("create: its name; update: a new name"),
  description: z.string().trim().max(2000).optional().describe("What it records"),
  fields: z
    .array(fieldInput)
    .max(MAX_FIELDS)
    .optional()
    .describe("create: its fields; update: fields added, or replaced by id"),
  removeFields: z
    .array(z.string().trim().min(1).max(100))
    .max(MAX_FIELDS)
    .optional()
    .describe("update: field ids"),
});
type Args = z.infer<typeof input>;
type FieldArg = z.infer<typeof fieldInput>;

const output = z.object({
  action: z.string(),
  group: groupShape.optional(),
  /** delete: the group's name and id. */
  deleted: z.object({ id: z.string(), name: z.string() }).optional(),
});

/** A field as the service takes it, on top of what it already says (an update keeps the rest). */
function wireField(f: FieldArg, base: Record<string, unknown> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {
    minOccurs: 0,
    maxOccurs: 1,
    visible: true,
    editable: true,
    defaultValue: "",
    indexed: true,
    type: "STRING",
    ...base,
    id: f.id,
    name: f.name ?? base?.name ?? f.id,
  };
  if (f.type) out.type = f.type;
  if (f.values) out.values = f.values;
  if (f.repeatable !== undefined) out.maxOccurs = f.repeatable ? -1 : 1;
  return out;
}

function fieldText(f: Record<string, unknown>): string {
  const values =
    Array.isArray(f.values) && f.values.length ? ` one of ${f.values.map(String).join(", ")}` : "";
  const many = String(f.maxOccurs) === "-1" ? ", repeatable" : "";
  return `${String(f.id)} "${clip(String(f.name ?? f.id), 80)}" ${String(f.type ?? "STRING")}${values}${many}`;
}

type Examined =
  | { kind: "create"; after: GroupInput }
  | {
      kind: "update";
      before: Record<string, unknown>;
      summary: MetadataGroupSummary;
      after: GroupInput;
      changes: string[];
    }
  | { kind: "delete"; before: Record<string, unknown>; summary: MetadataGroupSummary };

async function findGroup(ctx: ToolContext, wanted: string): Promise<MetadataGroupSummary> {
  const all = await ctx.api.metadataCsv.groups(ctx.signal);
  const w = wanted.toLowerCase();
  const g =
    all.find((x) => x.id === wanted) ?? all.find((x) => x.name.toLowerCase() === w || x.schemaUri === wanted);
  if (g) return g;
  throw new UserInputError(
    `No metadata group "${clip(wanted, 100)}"; ${all.length ? `the groups are ${all.map((x) => `"${clip(x.name, 60)}"`).join(", ")}` : "the repository has none"}. Nothing was changed.`,
  );
}

function duplicates(ids: string[]): string[] {
  return [...new Set(ids.filter((id, i) => ids.indexOf(id) !== i))];
}

async function examine(args: Args, ctx: ToolContext): Promise<Examined> {
  if (args.action === "create") {
    if (args.group || args.removeFields)
      throw new UserInputError("create takes name, description and fields (not group or removeFields).");
    if (!args.name || !args.fields?.length)
      throw new UserInputError(
        "create needs a `name` and at least one field in `fields`. Nothing was changed.",
      );
    const twice = duplicates(args.fields.map((f) => f.id));
    if (twice.length)
      throw new UserInputError(`Field ids given twice: ${twice.join(", ")}. Nothing was changed.`);
    const all = await ctx.api.metadataCsv.groups(ctx.signal);
    const same = all.find((g) => g.name.toLowerCase() === args.name?.toLowerCase());
    if (same)
      throw new UserInputError(
        `A metadata group named "${clip(same.name, 100)}" exists already (id ${same.id}); change it with action update. Nothing was changed.`,
      );
    return {
      kind: "create",
      after: {
        name: args.name,
        description: args.description ?? "",
        fields: args.fields.map((f) => wireField(f, undefined)),
      },
    };
  }
  if (!args.group)
    throw new UserInputError(`${args.action} needs \`group\`: its name or id (\`list_metadata_groups\`).`);
  const summary = await findGroup(ctx, args.group);
  const before = await ctx.api.metadataCsv.groupJson(summary.id, ctx.signal);
  if (args.action === "delete") {
    if (args.name || args.description !== undefined || args.fields || args.removeFields)
      throw new UserInputError("delete takes only `group`. Nothing was changed.");
    return { kind: "delete", before, summary };
  }
  const had = (Array.isArray(before.fields) ? before.fields : []) as Record<string, unknown>[];
  const byId = new Map(had.map((f) => [String(f.id), f]));
  const remove = new Set(args.removeFields ?? []);
  const missing = [...remove].filter((id) => !byId.has(id));
  if (missing.length)
    throw new UserInputError(
      `Group "${clip(summary.name, 100)}" has no field ${missing.join(", ")}; its fields are ${[...byId.keys()].join(", ")}. Nothing was changed.`,
    );
  const given = args.fields ?? [];
  const twice = duplicates(given.map((f) => f.id));
  const both = given.filter((f) => remove.has(f.id)).map((f) => f.id);
  if (twice.length || both.length)
    throw new UserInputError(
      `Each field id once: ${[...twice, ...both].join(", ")} ${both.length ? "is both changed and removed" : "is given twice"}. Nothing was changed.`,
    );
  const changes: string[] = [];
  const fields = had
    .filter((f) => !remove.has(String(f.id)))
    .map((f) => {
      const change = given.find((g) => g.id === String(f.id));
      if (!change) return f;
      const next = wireField(change, f);
      if (fieldText(next) !== fieldText(f)) changes.push(`field ${fieldText(f)} → ${fieldText(next)}`);
      return next;
    });
  for (const f of given.filter((g) => !byId.has(g.id))) {
    const next = wireField(f, undefined);
    fields.push(next);
    changes.push(`add field ${fieldText(next)}`);
  }
  for (const id of remove) changes.push(`remove field ${fieldText(byId.get(id) ?? { id })}`);
  const name = args.name ?? String(before.name ?? summary.name);
  const description = args.description ?? String(before.description ?? "");
  if (name !== summary.name) changes.unshift(`name "${clip(summary.name, 100)}" → "${clip(name, 100)}"`);
  if (description !== String(before.description ?? ""))
    changes.unshift(`description → "${clip(description, 200)}"`);
  if (changes.length === 0)
    throw new UserInputError(
      `Metadata group "${clip(summary.name, 100)}" already says that; nothing to change.`,
    );
  if (fields.length === 0)
    throw new UserInputError("A group needs at least one field; to remove it all, use action delete.");
  return { kind: "update", before, summary, after: { name, description, fields }, changes };
}

export default defineTool({
  name: "manage_metadata_group",
  title: "Create, change or delete a metadata group",
  description:
    "Create a metadata group (name, fields with type and allowed values), change one (rename; add, change or remove fields) or delete one. Asks for confirmation first. Its fields are then set with `csv_metadata_edit` or `update_metadata`.",
  toolset: "bulk",
  requiredRoles: MANAGER_ROLES,
  inputSchema: input,
  outputSchema: output,
  annotations: DESTRUCTIVE,
  async confirm(args, ctx: ToolContext): Promise<ConfirmPlan> {
    const e = await examine(args, ctx);
    if (e.kind === "create")
      return {
        summary: `Create metadata group "${clip(e.after.name, 100)}" with ${e.after.fields.length} field(s)`,
        details: e.after.fields.map((f) => `  ${fieldText(f)}`),
        targets: [absentTarget("group", e.after.name)],
      };
    const target = { ref: e.summary.id, title: e.summary.name, fingerprint: fingerprint(e.before) };
    if (e.kind === "update")
      return changesPlan(
        `Change metadata group "${clip(e.summary.name, 100)}" (id ${e.summary.id})`,
        e.changes,
        "Its schema URI stays; documents already written keep their values (a removed field's values stay in them).",
        target,
      );
    return {
      summary: `Delete metadata group "${clip(e.summary.name, 100)}" (id ${e.summary.id}, schema ${e.summary.schemaUri})`,
      details: [
        "Documents already written with its schema keep their values, but CSV edits and field maps no longer know its fields.",
      ],
      targets: [target],
    };
  },
  async handler(args, ctx: ToolContext) {
    const e = await examine(args, ctx);
    const api = ctx.api.metadataCsv;
    if (e.kind === "delete") {
      await api.deleteGroup(e.summary.id, ctx.signal);
      return {
        structured: { action: args.action, deleted: { id: e.summary.id, name: e.summary.name } },
        text: `Deleted metadata group "${clip(e.summary.name, 100)}" (id ${e.summary.id}).`,
        audit: { targets: [{ ref: e.summary.id, title: e.summary.name }] },
      };
    }
    const made =
      e.kind === "create"
        ? await api.createGroup(e.after, ctx.signal)
        : await api.updateGroup(e.summary.id, e.after, ctx.signal);
    const group = groupView(
      await api.group(made.id || (e.kind === "update" ? e.summary.id : ""), ctx.signal),
    );
    return {
      structured: { action: args.action, group },
      text: lines(
        e.kind === "create"
          ? `Created metadata group "${clip(group.name, 100)}":`
          : `Changed metadata group "${clip(group.name, 100)}": ${e.changes.join("; ")}. Now:`,
        ...groupLines(group),
      ),
      audit: { targets: [{ ref: group.id, title: group.name }] },
    };
  },
});
