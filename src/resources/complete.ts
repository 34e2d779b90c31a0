import type { Logger } from "pino";
import type { ContentApi, FieldFilter, ObjectType } from "../api/content.js";
import type { EntityApi } from "../api/entity.js";

/**
 * Completion of URI template variables. A person (or client) types the start of a title and gets the refs
 * of matching entities, through the Content API search: titles that start with the text first, then titles
 * that contain it. Hex-looking text also matches the start of a ref. Completion is a convenience, so a
 * failure answers "no suggestions" (and a log line) rather than an error.
 */

export const MAX_COMPLETIONS = 20;

/** `%` and `*` are the search's wildcards; in typed text they are literal characters at best. */
function literal(text: string): string {
  return text.replace(/[%*]/g, " ").trim();
}

export async function completeRefs(
  content: ContentApi,
  types: readonly ObjectType[],
  typed: string,
  log: Logger,
): Promise<string[]> {
  const text = literal(typed);
  const typeFilter: FieldFilter = { name: "xip.document_type", values: [...types] };
  const found: string[] = [];
  const add = (refs: string[]) => {
    for (const r of refs) if (!found.includes(r) && found.length < MAX_COMPLETIONS) found.push(r);
  };
  const query = async (filter?: FieldFilter) => {
    const res = await content.search({
      filters: filter ? [typeFilter, filter] : [typeFilter],
      sort: [{ field: "xip.title" }],
      metadata: ["xip.reference"],
      max: MAX_COMPLETIONS,
    });
    return res.ids.map((id) => id.ref);
  };
  try {
    if (!text) {
      add(await query());
      return found;
    }
    if (/^[0-9a-f-]{4,}$/i.test(text)) add(await query({ name: "xip.reference", values: [`${text}%`] }));
    if (found.length < MAX_COMPLETIONS) add(await query({ name: "xip.title", values: [`${text}%`] }));
    if (found.length < MAX_COMPLETIONS) add(await query({ name: "xip.title", values: [`%${text}%`] }));
  } catch (err) {
    log.warn({ err: (err as Error)?.message, typed }, "completion search failed");
  }
  return found;
}

/** The fragment refs of one entity that start with the typed text (the entity named by another variable). */
export async function completeFragments(
  entity: EntityApi,
  entityRef: string | undefined,
  typed: string,
  log: Logger,
): Promise<string[]> {
  if (!entityRef) return [];
  try {
    const e = await entity.get(entityRef);
    return e.fragments
      .map((f) => f.mref)
      .filter((m) => m.toLowerCase().startsWith(typed.toLowerCase()))
      .slice(0, MAX_COMPLETIONS);
  } catch (err) {
    log.debug({ err: (err as Error)?.message, entityRef }, "fragment completion failed");
    return [];
  }
}

/** Generation indexes of a content object, or the bitstream indexes of one generation. */
export async function completeFileIndexes(
  entity: EntityApi,
  args: { coRef?: string; generation?: string },
  which: "generation" | "index",
  typed: string,
  log: Logger,
): Promise<string[]> {
  if (!args.coRef) return [];
  try {
    let indexes: number[];
    if (which === "generation") {
      indexes = (await entity.generations(args.coRef, { max: MAX_COMPLETIONS })).items.map((g) => g.index);
    } else {
      const gen = Number(args.generation);
      if (!Number.isInteger(gen) || gen < 1) return [];
      indexes = (await entity.generation(args.coRef, gen)).bitstreams.map((b) => b.index);
    }
    return indexes.map(String).filter((s) => s.startsWith(typed));
  } catch (err) {
    log.debug({ err: (err as Error)?.message, ...args }, "index completion failed");
    return [];
  }
}
