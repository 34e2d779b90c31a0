import { z } from "zod";
import type { Entity, FragmentRef } from "../../api/entity.js";
import { XmlParseError } from "../../api/errors.js";
import {
  DUBLIN_CORE,
  documentFieldSchema,
  type FieldChange,
  type FieldSchema,
  fieldDiff,
  groupFieldSchema,
  InvalidMetadataError,
  OAI_DC_SCHEMA,
} from "../../api/metadata-build.js";
import type { ToolContext } from "../context.js";
import { UserInputError } from "../define.js";
import { spoken } from "../support/kinds.js";
import { schemaFamilyMatches, schemaMatches, schemaName } from "../support/schemas.js";
import { clip } from "../support/text.js";

/**
 * What the metadata tools share: naming an entity in a sentence, finding the
 * fragment of a schema, and turning a value that cannot be written into a message the caller can act on.
 */

/** `asset “Minute book” 7f3e…` */
export function named(e: Pick<Entity, "type" | "title" | "ref">): string {
  return `${spoken(e.type)} “${clip(e.title, 120)}” ${e.ref}`;
}

/** Runs a builder; a value that cannot be written becomes a UserInputError saying nothing was changed. */
export function buildOrExplain<T>(fn: () => T): T {
  const explain = (err: unknown): never => {
    if (err instanceof InvalidMetadataError || err instanceof XmlParseError)
      throw new UserInputError(`${err.message}. Nothing was changed.`);
    throw err;
  };
  try {
    const out = fn();
    // Request bodies are built after an await inside the API: explain those failures too.
    return (out instanceof Promise ? out.catch(explain) : out) as T;
  } catch (err) {
    return explain(err);
  }
}

export function listFragments(fragments: FragmentRef[]): string {
  return fragments.length ? fragments.map((f) => `${schemaName(f.schema)} ${f.mref}`).join(", ") : "none";
}

/** The fragment `mref` names, or the one fragment of `wanted` schema; undefined when it has none of it. */
export function findFragment(e: Entity, opts: { mref?: string; schema?: string }): FragmentRef | undefined {
  if (opts.mref) {
    const f = e.fragments.find((x) => x.mref.toLowerCase() === opts.mref?.toLowerCase());
    if (!f)
      throw new UserInputError(
        `The ${named(e)} has no fragment ${opts.mref}; its fragments: ${listFragments(e.fragments)}. Nothing was changed.`,
      );
    if (opts.schema && !schemaMatches(f.schema, opts.schema) && !schemaFamilyMatches(f.schema, opts.schema))
      throw new UserInputError(
        `Fragment ${f.mref} is ${schemaName(f.schema)} (${f.schema}), not "${opts.schema}". Nothing was changed.`,
      );
    return f;
  }
  const wanted = opts.schema ?? "oai_dc";
  const exact = e.fragments.filter((f) => schemaMatches(f.schema, wanted));
  const matches = exact.length ? exact : e.fragments.filter((f) => schemaFamilyMatches(f.schema, wanted));
  if (matches.length > 1)
    throw new UserInputError(
      `The ${named(e)} has ${matches.length} fragments of "${wanted}"; pass mref: ${listFragments(matches)}. Nothing was changed.`,
    );
  return matches[0];
}

/**
 * The schema URI a new fragment gets: a URI as given, Dublin Core by any of its names, or a metadata group
 * by name or schema URI. Also the group, when it is one (its fields take field maps).
 */
export async function resolveSchema(
  ctx: ToolContext,
  wanted: string,
): Promise<{ schema: string; groupId?: string }> {
  const w = wanted.trim();
  if (schemaMatches(OAI_DC_SCHEMA, w) || schemaFamilyMatches(OAI_DC_SCHEMA, w))
    return { schema: OAI_DC_SCHEMA };
  const groups = await ctx.api.entityWrite.metadataGroups(ctx.signal);
  const norm = (s: string) => s.trim().replace(/\/+$/, "").toLowerCase();
  const group =
    groups.find((g) => norm(g.schemaUri) === norm(w)) ??
    groups.find(
      (g) => g.name.toLowerCase() === w.toLowerCase() || schemaName(g.schemaUri) === w.toLowerCase(),
    );
  if (group) return { schema: group.schemaUri, groupId: group.id };
  if (/^[a-z][a-z0-9+.-]*:\S+$/i.test(w)) return { schema: w };
  const names = ["oai_dc (Dublin Core)", ...groups.map((g) => `${g.name} (${schemaName(g.schemaUri)})`)];
  throw new UserInputError(
    `Unknown schema "${clip(w, 100)}": use one of ${names.join(", ")}, or a schema URI. Nothing was changed.`,
  );
}

/** How a field map is applied for `schema`: Dublin Core, a metadata group, or the fields the document has. */
export async function fieldSchemaFor(
  ctx: ToolContext,
  schema: string,
  current: string | undefined,
  groupId: string | undefined,
): Promise<FieldSchema> {
  if (schemaMatches(OAI_DC_SCHEMA, schema)) return DUBLIN_CORE;
  let id = groupId;
  if (!id) {
    const groups = await ctx.api.entityWrite.metadataGroups(ctx.signal);
    id = groups.find((g) => g.schemaUri.replace(/\/+$/, "") === schema.replace(/\/+$/, ""))?.id;
  }
  if (id) return groupFieldSchema(await ctx.api.entityWrite.metadataGroup(id, ctx.signal));
  if (current !== undefined) return buildOrExplain(() => documentFieldSchema(schema, current));
  throw new UserInputError(
    `No field list is known for schema ${schema} and the entity has no fragment of it to follow; send the whole document as \`xml\`. Nothing was changed.`,
  );
}

/** Field-by-field changes; a document that is not XML shows no fields rather than failing. */
export function safeDiff(before: string | undefined, after: string | undefined): FieldChange[] {
  try {
    return fieldDiff(before, after);
  } catch {
    return [];
  }
}

export const MAX_DIFF_LINES = 40;

export const changeOut = z.object({
  field: z.string(),
  before: z.array(z.string()),
  after: z.array(z.string()),
});
