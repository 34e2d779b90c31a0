import type { ContentApi, IndexedField } from "../../api/content.js";
import { UserInputError } from "../define.js";

/**
 * The service's indexed fields, fetched once and kept a while, so a field name a model guessed wrong
 * (`oai_dc.subjects`, `title`) is answered with the names that exist instead of the service's 400.
 */

const TTL_MS = 10 * 60_000;
const cache = new WeakMap<ContentApi, { at: number; fields: Promise<IndexedField[]> }>();

export function indexedFields(content: ContentApi, signal?: AbortSignal): Promise<IndexedField[]> {
  const hit = cache.get(content);
  if (hit && Date.now() - hit.at < TTL_MS) return hit.fields;
  const fields = content.indexedFields(signal);
  cache.set(content, { at: Date.now(), fields });
  // A failed fetch is not kept: the next call tries again.
  fields.catch(() => cache.delete(content));
  return fields;
}

/** The names closest to `name`: same local part in another prefix, or sharing a prefix of the text. */
function suggestions(name: string, known: string[]): string[] {
  const n = name.toLowerCase();
  const local = n.split(".").at(-1) ?? n;
  const stem = local.replace(/s$/, "").slice(0, 5);
  return known.filter((k) => {
    const kl = k.toLowerCase().split(".").at(-1) ?? "";
    return kl === local || (stem.length >= 3 && kl.startsWith(stem));
  });
}

/**
 * Checks every field name the caller gave (filters, facets, fields to return) against the index. Returns
 * the names as the service spells them; throws a UserInputError listing what exists for any it lacks.
 */
export async function checkFieldNames(
  content: ContentApi,
  uses: { name: string; use: string }[],
  signal?: AbortSignal,
): Promise<Map<string, IndexedField>> {
  const byName = new Map<string, IndexedField>();
  if (uses.length === 0) return byName;
  const fields = await indexedFields(content, signal);
  const index = new Map(fields.map((f) => [f.field.toLowerCase(), f]));
  for (const { name, use } of uses) {
    const f = index.get(name.trim().toLowerCase());
    if (f) {
      byName.set(name, f);
      continue;
    }
    const known = fields.map((x) => x.field);
    const near = suggestions(name, known);
    throw new UserInputError(
      `"${name}" (in ${use}) is not an indexed field.${near.length ? ` Did you mean ${near.slice(0, 4).join(", ")}?` : ""} Fields: ${known.join(", ")}.`,
    );
  }
  for (const { name, use } of uses) {
    if (use === "facets" && byName.get(name)?.facetable === false) {
      const facetable = fields.filter((f) => f.facetable).map((f) => f.field);
      throw new UserInputError(
        `"${name}" cannot be counted as a facet; facetable fields: ${facetable.join(", ")}.`,
      );
    }
  }
  return byName;
}
