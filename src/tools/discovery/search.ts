import { z } from "zod";
import { DEFAULT_METADATA, type FieldFilter, type MetadataRow } from "../../api/content.js";
import type { ToolContext } from "../context.js";
import { defineTool } from "../define.js";
import { decodeCursor, pageFacts, queryHash } from "../support/cursor.js";
import { checkRange, toInstant } from "../support/dates.js";
import { loadEntity, nameRefs } from "../support/entities.js";
import { READ_ONLY } from "../support/hints.js";
import { checkFieldNames } from "../support/indexed-fields.js";
import { KIND_OF, TYPE_OF } from "../support/kinds.js";
import { budgetNote, withinBudget } from "../support/paging.js";
import { clip, itemLine, lines, pageNote, plural } from "../support/text.js";
import { cursor, date, kind, limit, page, refParam } from "./params.js";

/** A returned field value longer than this is cut (xip.full_text can hold 100,000 characters). */
const MAX_VALUE_CHARS = 1000;
/** Values of a multi-valued field returned per hit. */
const MAX_VALUES = 20;
/** Terms shown per facet. */
const MAX_FACET_VALUES = 20;
/** A field with at most this many distinct values is a vocabulary worth listing when a filter on it missed. */
const MAX_VOCABULARY = 50;
/** Values of such a field listed in the no-match answer. */
const MAX_HINT_VALUES = 15;
/** Parents of a page's hits named by title in the text (the rest by ref). */
const MAX_PARENTS_NAMED = 10;

const fieldName = z.string().trim().min(1).max(100);

const input = z.object({
  query: z
    .string()
    .max(500)
    .optional()
    .describe(
      'Words to find (all must match); "a phrase", prefix%, OR, -exclude. Omit to list by filters only',
    ),
  type: kind.optional().describe("Only this kind (default: folders and assets)"),
  within: refParam("Only below this folder; find it with `browse` or `search`").optional(),
  securityTag: z.string().trim().min(1).max(100).optional().describe("Only this security tag, e.g. open"),
  createdFrom: date("Added to the repository on or after (not the record's own date: filter oai_dc.date)"),
  createdTo: date("Added to the repository on or before (inclusive)"),
  fields: z
    .array(
      z.object({
        field: fieldName.describe(
          "Indexed field, e.g. oai_dc.subject, oai_dc.creator, xip.identifier, xip.format_group (files: pdf, png, tiff…)",
        ),
        values: z.array(z.string().max(200)).min(1).max(20).describe("Whole values; % is a wildcard"),
        exclude: z.boolean().optional().describe("true: leave these values out"),
      }),
    )
    .max(10)
    .optional()
    .describe("Field filters (ANDed; values within one filter ORed)"),
  facets: z.array(fieldName).max(5).optional().describe("Fields to count values of, e.g. oai_dc.subject"),
  metadata: z.array(fieldName).max(10).optional().describe("Fields to return per hit, e.g. oai_dc.date"),
  limit: limit(20, 100),
  cursor,
});

const output = z.object({
  hits: z.array(
    z.object({
      ref: z.string(),
      type: kind,
      title: z.string(),
      parentRef: z.string().optional(),
      fields: z.record(z.string(), z.union([z.string(), z.array(z.string())])).optional(),
    }),
  ),
  ...page,
  facets: z
    .array(
      z.object({
        field: z.string(),
        values: z.array(z.object({ value: z.string(), count: z.number() })),
        more: z.number().optional(),
      }),
    )
    .optional(),
});

type Value = string | string[];

function cutValue(v: Value): Value {
  const cut = (s: string) =>
    s.length > MAX_VALUE_CHARS
      ? `${s.slice(0, MAX_VALUE_CHARS)}… [cut: ${s.length.toLocaleString("en")} characters in all]`
      : s;
  if (!Array.isArray(v)) return cut(v);
  const shown = v.slice(0, MAX_VALUES).map(cut);
  return v.length > MAX_VALUES ? [...shown, `… and ${v.length - MAX_VALUES} more`] : shown;
}

function first(v: Value | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/**
 * When a filter on a field with a small vocabulary matched nothing (`xip.format_group: Image`, where the
 * groups are pdf, png, tiff…), the values that field does hold, so the next call can use one. Only on a
 * miss, and a failure here only loses the hint.
 */
async function vocabularyHint(
  ctx: ToolContext,
  fields: { field: string; values: string[]; exclude?: boolean }[],
  canonical: (name: string) => string,
  facetable: (name: string) => boolean,
): Promise<string | undefined> {
  const filter = fields.find((f) => !f.exclude && facetable(f.field));
  if (!filter) return undefined;
  const name = canonical(filter.field);
  try {
    const r = await ctx.content.search({ text: "", facets: [name], max: 1, signal: ctx.signal });
    const values = r.facets.find((f) => f.field === name)?.values ?? [];
    if (values.length === 0 || values.length > MAX_VOCABULARY) return undefined;
    // A value that exists means the miss came from the other filters: listing values would mislead.
    const given = new Set(filter.values.map((v) => v.trim().toLowerCase()));
    if (values.some((v) => given.has(v.value.toLowerCase()))) return undefined;
    const shown = values.slice(0, MAX_HINT_VALUES).map((v) => `${clip(v.value, 60)} (${v.count})`);
    const more = values.length > shown.length ? `, and ${values.length - shown.length} more` : "";
    return `${name} holds these values: ${shown.join(", ")}${more}.`;
  } catch (err) {
    ctx.log.debug({ err: (err as Error)?.message, field: name }, "vocabulary hint failed");
    return undefined;
  }
}

/** After a miss below a folder: how many the same search finds in the whole repository (one tiny query). */
async function elsewhereCount(
  ctx: ToolContext,
  query: { text: string; filters: FieldFilter[] },
): Promise<number | undefined> {
  try {
    const r = await ctx.content.search({
      text: query.text,
      filters: query.filters,
      max: 1,
      signal: ctx.signal,
    });
    return r.totalHits;
  } catch (err) {
    ctx.log.debug({ err: (err as Error)?.message }, "search elsewhere count failed");
    return undefined;
  }
}

/** After a created-date miss: the dates items were added between (newest and oldest, one tiny query each). */
async function createdRangeHint(ctx: ToolContext): Promise<string | undefined> {
  try {
    const edge = (descending: boolean) =>
      ctx.content.search({
        text: "",
        sort: [{ field: "xip.created", descending }],
        metadata: ["xip.created"],
        max: 1,
        signal: ctx.signal,
      });
    const [oldest, newest] = await Promise.all([edge(false), edge(true)]);
    const date = (r: Awaited<ReturnType<typeof edge>>) => first(r.rows[0]?.["xip.created"]);
    const a = date(oldest);
    const b = date(newest);
    return a && b ? `Items you may see were added between ${a} and ${b}.` : undefined;
  } catch (err) {
    ctx.log.debug({ err: (err as Error)?.message }, "created range hint failed");
    return undefined;
  }
}

export default defineTool({
  name: "search",
  title: "Search the collection",
  description:
    "Find folders, assets or content objects by words and/or filters (kind, folder subtree, security tag, created dates, indexed fields), with facet counts. Returns refs for `get_entity`, `browse`, `get_file`. Paged.",
  toolset: "discovery",
  inputSchema: input,
  outputSchema: output,
  annotations: READ_ONLY,
  async handler(args, ctx: ToolContext) {
    const hash = queryHash("search", args);
    const offset = decodeCursor(args.cursor, hash);
    const from = args.createdFrom ? toInstant(args.createdFrom, "start", "createdFrom") : undefined;
    const to = args.createdTo ? toInstant(args.createdTo, "end", "createdTo") : undefined;
    checkRange(from, to, ["createdFrom", "createdTo"]);

    const known = await checkFieldNames(
      ctx.content,
      [
        ...(args.fields ?? []).map((f) => ({ name: f.field, use: "fields" })),
        ...(args.facets ?? []).map((name) => ({ name, use: "facets" })),
        ...(args.metadata ?? []).map((name) => ({ name, use: "metadata" })),
      ],
      ctx.signal,
    );
    const canonical = (name: string) => known.get(name)?.field ?? name;

    const folder = args.within
      ? await loadEntity(ctx, args.within, {
          expect: ["SO"],
          wrongKind: () => "`within` takes a folder; search without it, or give the folder above.",
        })
      : undefined;

    const filters: FieldFilter[] = [];
    if (args.type) filters.push({ name: "xip.document_type", values: [TYPE_OF[args.type]] });
    if (args.securityTag) filters.push({ name: "xip.security_descriptor", values: [args.securityTag] });
    // Solr range syntax, full timestamps at both ends, as the real service's index expects.
    if (from || to) filters.push({ name: "xip.created", values: [`[${from ?? "*"} TO ${to ?? "*"}]`] });
    for (const f of args.fields ?? []) {
      filters.push({ name: canonical(f.field), values: f.values, ...(f.exclude ? { exclude: true } : {}) });
    }
    const wanted = [...new Set((args.metadata ?? []).map(canonical))];
    const query = {
      text: args.query?.trim() ?? "",
      filters,
      facets: (args.facets ?? []).map(canonical),
      metadata: [...new Set([...DEFAULT_METADATA, ...wanted])],
      start: offset,
      max: args.limit,
      signal: ctx.signal,
    };
    const result = folder
      ? await ctx.content.searchWithin(folder.ref, query)
      : await ctx.content.search(query);

    const allHits = result.ids.map((id, i) => {
      const row: MetadataRow = result.rows[i] ?? {};
      const parentRef = first(row["xip.parent_ref"]);
      const fields: Record<string, Value> = {};
      for (const name of wanted) {
        const v = row[name];
        if (v !== undefined && v !== "" && !(Array.isArray(v) && v.length === 0)) fields[name] = cutValue(v);
      }
      return {
        ref: id.ref,
        type: KIND_OF[id.type],
        title: first(row["xip.title"]) ?? "",
        ...(parentRef ? { parentRef } : {}),
        ...(Object.keys(fields).length ? { fields } : {}),
      };
    });
    const { kept: hits, cut } = withinBudget(allHits);
    const facets = result.facets.map((f) => ({
      field: f.field,
      values: f.values.slice(0, MAX_FACET_VALUES).map((v) => ({ value: v.value, count: v.count })),
      ...(f.values.length > MAX_FACET_VALUES ? { more: f.values.length - MAX_FACET_VALUES } : {}),
    }));
    const paging = pageFacts(offset, hits.length, result.totalHits, hash);
    const structured = { hits, ...paging, ...(facets.length ? { facets } : {}) };

    const said = clip(args.query?.trim() ?? "", 80);
    // A phrase query brings its own quotes: do not double them.
    const what = said ? (said.includes('"') ? ` for ${said}` : ` for "${said}"`) : "";
    const where = folder ? ` below folder "${clip(folder.title, 80)}"` : "";
    const elsewhere = result.totalHits === 0 && folder ? await elsewhereCount(ctx, query) : undefined;
    // The subtree walk covers every level below (content objects too, when asked for by type), so after a
    // miss below a folder the useful advice is whether widening the scope finds anything, not rewording.
    const scopeHint =
      elsewhere === undefined
        ? undefined
        : `The folder's whole subtree was searched${args.type ? "" : " (folders and assets; type content_object for files)"}; ${
            elsewhere > 0
              ? `the same search finds ${plural(elsewhere, "match", "matches")} elsewhere in the repository: search again without \`within\`.`
              : "the same search finds nothing elsewhere either."
          }`;
    const hints =
      result.totalHits === 0
        ? [
            await vocabularyHint(ctx, args.fields ?? [], canonical, (n) => known.get(n)?.facetable === true),
            (from || to) &&
              `createdFrom/createdTo are when items were added to the repository; for the record's own date filter fields [{field: "oai_dc.date", values: ["1851%"]}].`,
            (from || to) && (await createdRangeHint(ctx)),
          ]
        : [];
    const head =
      result.totalHits === 0
        ? lines(
            elsewhere
              ? `No matches${what}${where}.`
              : `No matches${what}${where}. Try fewer or shorter words (prefix%), or fewer filters.`,
            scopeHint,
            ...hints,
          )
        : `${plural(result.totalHits, "match", "matches")}${what}${where}:`;
    // Where each hit sits, by title: a person places a hit by its folder, not by a ref.
    const parentRefs = hits.map((h) => h.parentRef).filter((r): r is string => Boolean(r));
    const parents = parentRefs.length
      ? await nameRefs(ctx, parentRefs, ["SO", "IO"], MAX_PARENTS_NAMED)
      : new Map();
    const hitLines = hits.map((h) =>
      lines(
        `${itemLine(h)}${h.parentRef ? `, in ${parents.has(h.parentRef) ? `"${clip(parents.get(h.parentRef)?.title ?? "", 60)}" ` : ""}${h.parentRef}` : ""}`,
        ...Object.entries(h.fields ?? {}).map(
          ([k, v]) => `    ${k}: ${clip(Array.isArray(v) ? v.join("; ") : v, 200)}`,
        ),
      ),
    );
    const facetLines = facets.map(
      (f) =>
        `${f.field}: ${f.values.map((v) => `${clip(v.value, 60)} (${v.count})`).join(", ") || "no values"}${f.more ? `, and ${f.more} more values` : ""}`,
    );
    const text = lines(
      head,
      ...hitLines,
      facetLines.length > 0 && `Facets:\n${facetLines.join("\n")}`,
      budgetNote(cut),
      pageNote(offset, hits.length, result.totalHits, paging.nextCursor),
    );
    return { structured, text };
  },
});
