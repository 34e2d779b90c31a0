import { z } from "zod";
import type { Entity, Identifier } from "../../api/entity.js";
import { escapeXmlStrict } from "../../api/metadata-build.js";
import { fingerprint } from "../../guards/fingerprint.js";
import { toUserMessage } from "../../server/errors.js";
import type { ToolContext } from "../context.js";
import { type ConfirmPlan, CURATOR_ROLES, defineTool, UserInputError } from "../define.js";
import { entityRef } from "../discovery/params.js";
import { loadEntity } from "../support/entities.js";
import { DESTRUCTIVE } from "../support/hints.js";
import * as many from "../support/targets.js";
import { clip, lines } from "../support/text.js";
import { buildOrExplain, named } from "./params.js";

/** Identifiers read to resolve the changes: far more than an entity has in practice. */
const MAX_IDENTIFIERS = 500;

// Plain strings in the schema (each bound would cost tokens in every tools/list); checked in `resolve`.
const str = z.string();
const input = z.object({
  ref: entityRef.optional(),
  ...many.manyParams,
  add: z
    .array(z.object({ type: str, value: str }))
    .max(20)
    .optional()
    .describe("[{type, value}] to add; {n} or {nnn} in a value numbers many"),
  change: z
    .array(z.object({ type: str, from: str.optional(), to: str }))
    .max(20)
    .optional()
    .describe("[{type, from?, to}]; from = current value if several share the type"),
  remove: z
    .array(z.object({ type: str, value: str.optional() }))
    .max(20)
    .optional()
    .describe("[{type, value?}] to remove; value if several share the type"),
});
type Args = z.infer<typeof input>;

const pair = z.object({ type: z.string(), value: z.string() });
const output = z.object({
  ref: z.string().optional(),
  title: z.string().optional(),
  /** Many targets: each one's outcome. */
  results: z.array(many.resultShape).optional(),
  changes: z
    .array(
      z.object({
        action: z.enum(["added", "changed", "removed", "already_there"]),
        type: z.string(),
        value: z.string(),
        to: z.string().optional(),
      }),
    )
    .optional(),
  /** The identifiers after the changes (at most 50). */
  identifiers: z.array(pair).optional(),
});

const show = (p: { type: string; value: string }) => `${p.type} “${clip(p.value, 200)}”`;

/** The one identifier of `type` (with `value`, when given); UserInputError when none or several match. */
function pick(list: Identifier[], type: string, value: string | undefined, where: string): Identifier {
  const ofType = list.filter((i) => i.type === type);
  const same = ofType.length ? ofType : list.filter((i) => i.type.toLowerCase() === type.toLowerCase());
  const matches = value === undefined ? same : same.filter((i) => i.value === value);
  if (matches.length === 1) return matches[0] as Identifier;
  const has = list.length ? list.map(show).join("; ") : "none";
  if (matches.length === 0)
    throw new UserInputError(
      `The ${where} has no identifier ${value === undefined ? `of type ${type}` : show({ type, value })}; it has: ${has}. Nothing was changed.`,
    );
  throw new UserInputError(
    `The ${where} has ${matches.length} identifiers of type ${type} (${matches.map(show).join("; ")}); say which by its value. Nothing was changed.`,
  );
}

/** Every change resolved against the identifiers the entity has now, before anything is written. */
async function resolve(args: Args, ctx: ToolContext) {
  return resolveOn(await loadEntity(ctx, args.ref as string), args, ctx);
}

/** `{n}`, `{nn}`, `{nnn}`… in a value: the target's place in the selection, zero-padded to that width. */
function numbered(value: string, position: number): string {
  return value.replace(/\{(n+)\}/g, (_m, ns: string) => String(position).padStart(ns.length, "0"));
}

/** The changes the arguments make to the target at `position` (values numbered). */
function numberedArgs(args: Args, position: number): Args {
  return {
    ...args,
    ...(args.add ? { add: args.add.map((a) => ({ ...a, value: numbered(a.value, position) })) } : {}),
    ...(args.change ? { change: args.change.map((c) => ({ ...c, to: numbered(c.to, position) })) } : {}),
  };
}

type Resolved = Awaited<ReturnType<typeof resolveOn>>;

/** Many targets: the same changes on each (values numbered by position); one with nothing to do is left alone. */
function planIdentifiers(args: Args, ctx: ToolContext): Promise<many.ManyPlan<Resolved>> {
  if (!args.add?.length && !args.change?.length && !args.remove?.length)
    throw new UserInputError("Pass at least one of `add`, `change` or `remove`. Nothing was changed.");
  return many.planMany<Resolved>(ctx, args, {
    expect: ["IO", "SO", "CO"],
    permission: "Update Metadata",
    async examine(e, position) {
      const r = await resolveOn(e, numberedArgs(args, position), ctx);
      if (r.planned.length === 0)
        return {
          unchanged: r.alreadyThere.length ? `has ${r.alreadyThere.map(show).join("; ")}` : "nothing to do",
        };
      return { change: r, line: r.planned.join("; "), fingerprint: r.fingerprint };
    },
  });
}

/** Writes one entity's resolved changes in order; a failure names what was done before it. */
async function write(r: Resolved, ctx: ToolContext): Promise<void> {
  const { e, toChange, toRemove, toAdd, planned } = r;
  const done: string[] = [];
  const w = ctx.api.entityWrite;
  const step = async (fn: () => Promise<unknown>) => {
    try {
      await buildOrExplain(fn);
      done.push(planned[done.length] as string);
    } catch (err) {
      if (done.length === 0) throw err;
      const notDone = planned.slice(done.length);
      throw new UserInputError(
        `${toUserMessage(err, "edit_identifiers").replace(/ Nothing was changed\.$/, "")} Done before it failed: ${done.join("; ")}. Not done: ${notDone.join("; ")}.`,
      );
    }
  };
  for (const c of toChange)
    await step(() => w.updateIdentifier(e.ref, e.type, c.id.apiId, c.id.type, c.to, ctx.signal));
  for (const i of toRemove) await step(() => w.deleteIdentifier(e.ref, e.type, i.apiId, ctx.signal));
  for (const a of toAdd) await step(() => w.addIdentifier(e.ref, e.type, a.type, a.value, ctx.signal));
}

async function resolveOn(e: Entity, args: Args, ctx: ToolContext) {
  const adds = args.add ?? [];
  const changes = args.change ?? [];
  const removes = args.remove ?? [];
  if (adds.length + changes.length + removes.length === 0)
    throw new UserInputError("Pass at least one of `add`, `change` or `remove`. Nothing was changed.");
  const given = [
    ...adds.flatMap((a) => [a.type, a.value]),
    ...changes.flatMap((c) => [c.type, c.to]),
    ...removes.map((r) => r.type),
  ];
  if (given.some((v) => v.trim() === "" || v.length > 1000))
    throw new UserInputError(
      "Types and values must be 1 to 1,000 characters, not blank. Nothing was changed.",
    );
  const where = named(e);
  const list = (await ctx.entity.identifiers(e.ref, e.type, { max: MAX_IDENTIFIERS, signal: ctx.signal }))
    .items;
  const taken = new Set<string>();
  const claim = (i: Identifier) => {
    if (taken.has(i.apiId))
      throw new UserInputError(`${show(i)} is named twice in this call. Nothing was changed.`);
    taken.add(i.apiId);
    return i;
  };
  const toChange = changes.map((c) => ({ id: claim(pick(list, c.type, c.from, where)), to: c.to }));
  const toRemove = removes.map((r) => claim(pick(list, r.type, r.value, where)));
  const alreadyThere = adds.filter((a) => list.some((i) => i.type === a.type && i.value === a.value));
  const toAdd = adds.filter((a) => !alreadyThere.includes(a));
  // Values XML cannot carry are refused now, not half-way through.
  buildOrExplain(() => {
    for (const a of [...toAdd, ...changes.map((c) => ({ type: c.type, value: c.to }))]) {
      escapeXmlStrict(a.type, "An identifier type");
      escapeXmlStrict(a.value, `The value of ${a.type}`);
    }
  });
  const planned = [
    ...toChange.map((c) => `change ${show(c.id)} to “${clip(c.to, 200)}”`),
    ...toRemove.map((i) => `remove ${show(i)}`),
    ...toAdd.map((a) => `add ${show(a)}`),
  ];
  const state = list
    .map((i) => `${i.apiId}\t${i.type}\t${i.value}`)
    .sort()
    .join("\n");
  return { e, where, toChange, toRemove, toAdd, alreadyThere, planned, fingerprint: fingerprint(state) };
}

export default defineTool({
  name: "edit_identifiers",
  title: "Add, change or remove identifiers",
  description:
    "Add, change and remove identifiers (type + value, e.g. accession A-17) of one entity or many (`refs`, a `folder`'s contents); answers what changed. Changes, removals and many are confirmed first.",
  toolset: "metadata",
  requiredRoles: CURATOR_ROLES,
  inputSchema: input,
  outputSchema: output,
  annotations: DESTRUCTIVE,
  async confirm(args, ctx: ToolContext): Promise<ConfirmPlan | undefined> {
    if (many.isMany(args)) {
      const p = await planIdentifiers(args, ctx);
      return many.manyConfirmPlan(p, `Change the identifiers of ${p.changes.length} (${p.from})`);
    }
    const r = await resolve(args, ctx);
    if (r.toChange.length + r.toRemove.length === 0) return undefined;
    return {
      summary: `Change the identifiers of the ${r.where}`,
      details: r.planned.map((p) => `  ${p}`),
      targets: [{ ref: r.e.ref, title: r.e.title, fingerprint: r.fingerprint }],
    };
  },
  async handler(args, ctx: ToolContext) {
    if (many.isMany(args)) {
      const p = await planIdentifiers(args, ctx);
      const run = await many.runMany(ctx, "edit_identifiers", p, async (_e, r) => {
        await write(r, ctx);
        return undefined;
      });
      return {
        structured: { results: run.results },
        ...many.manyAnswer("Identifiers", p, run),
      };
    }
    const r = await resolve(args, ctx);
    const { e, where, toChange, toRemove, toAdd, alreadyThere } = r;
    await write(r, ctx);

    const after = await ctx.entity.identifiers(e.ref, e.type, { max: 50, signal: ctx.signal });
    const identifiers = after.items.map((i) => ({ type: i.type, value: i.value }));
    return {
      structured: {
        ref: e.ref,
        title: e.title,
        changes: [
          ...toChange.map((c) => ({
            action: "changed" as const,
            type: c.id.type,
            value: c.id.value,
            to: c.to,
          })),
          ...toRemove.map((i) => ({ action: "removed" as const, type: i.type, value: i.value })),
          ...toAdd.map((a) => ({ action: "added" as const, ...a })),
          ...alreadyThere.map((a) => ({ action: "already_there" as const, ...a })),
        ],
        identifiers,
      },
      text: lines(
        `Identifiers of the ${where}:`,
        ...toChange.map((c) => `  changed ${c.id.type}: “${clip(c.id.value, 200)}” → “${clip(c.to, 200)}”`),
        ...toRemove.map((i) => `  removed ${show(i)}`),
        ...toAdd.map((a) => `  added ${show(a)}`),
        ...alreadyThere.map((a) => `  already there: ${show(a)}`),
        `Now: ${identifiers.length ? identifiers.map(show).join("; ") : "none"}${after.total > identifiers.length ? ` … and ${after.total - identifiers.length} more` : ""}`,
      ),
      audit: { targets: [{ ref: e.ref, title: e.title }] },
    };
  },
});
