import type { Entity, EntityType } from "../../api/entity.js";
import { isNotFound, isServiceError } from "../../api/errors.js";
import type { ToolContext } from "../context.js";
import { UserInputError } from "../define.js";
import { spoken, withArticle } from "./kinds.js";
import { clip } from "./text.js";

/**
 * Loading the entity a ref names when the tool only works on some kinds of entity. A bare ref does not say
 * what it names, so the expected kinds are tried first; when none has that ref the others are tried, so
 * a folder ref given to a file tool gets an answer that says what the ref is and which tool fits, not a
 * bare "not found". A 403 is never swallowed: it bubbles to the error boundary as a permission answer.
 */

export const ALL_TYPES: readonly EntityType[] = ["IO", "SO", "CO"];

/** The entity, or undefined when there is none of that kind with this ref (a 404). */
function tryGet(ctx: ToolContext, ref: string, type: EntityType): Promise<Entity | undefined> {
  // A promise chain rather than an async function: this runs for every entity a tool loads.
  return ctx.entity.get(ref, type, ctx.signal).catch(undefinedIfNotFound);
}

function undefinedIfNotFound(err: unknown): undefined {
  if (isNotFound(err)) return undefined;
  throw err;
}

export interface LoadOptions {
  /** Kinds the tool accepts, in the order to try them (default: any). */
  expect?: readonly EntityType[];
  /** The sentence after "<ref> is a folder (…)": what to do instead. */
  wrongKind?: (e: Entity) => string;
}

/** The entity `ref` names, of an expected kind; UserInputError when it is missing or of another kind. */
export async function loadEntity(ctx: ToolContext, ref: string, opts: LoadOptions = {}): Promise<Entity> {
  const expected = opts.expect ?? ALL_TYPES;
  // Kept small: an async function's frame (every local and temporary) is saved on the heap at each await,
  // and this runs for every entity a tool loads. The rare answers are worded in notOfExpectedKind.
  for (let i = 0; i < expected.length; i++) {
    const e = await tryGet(ctx, ref, expected[i] as EntityType);
    if (e) return e;
  }
  throw await notOfExpectedKind(ctx, ref, expected, opts);
}

/** Why `ref` names no entity of an expected kind: it is of another kind (which, and what to do), or nothing. */
async function notOfExpectedKind(
  ctx: ToolContext,
  ref: string,
  expected: readonly EntityType[],
  opts: LoadOptions,
): Promise<UserInputError> {
  for (const type of ALL_TYPES.filter((t) => !expected.includes(t))) {
    const e = await tryGet(ctx, ref, type);
    if (e) {
      const [first, ...rest] = expected;
      const wanted = [first ? withArticle(first) : "", ...rest.map(spoken)].join(" or ");
      return new UserInputError(
        `${ref} is ${withArticle(e.type)} ("${clip(e.title, 80)}"), not ${wanted}. ${opts.wrongKind?.(e) ?? ""}`.trim(),
      );
    }
  }
  return new UserInputError(
    `Nothing with ref ${ref} exists (or it was deleted); find refs with \`search\` or \`browse\`.`,
  );
}

export interface Crumb {
  ref: string;
  title: string;
}

/** Ancestors are followed at most this far; deeper trees are reported as cut. */
export const MAX_BREADCRUMBS = 24;

/**
 * The folders above an entity, the top-level one first, by following Parent refs (one request each, at
 * most MAX_BREADCRUMBS). Stops early, saying so, at an ancestor the caller may not read.
 */
export async function ancestors(
  ctx: ToolContext,
  entity: Pick<Entity, "type" | "parentRef">,
): Promise<{ crumbs: Crumb[]; complete: boolean }> {
  const crumbs: Crumb[] = [];
  // A content object's parent is its asset; everything else sits in a folder.
  let nextType: EntityType = entity.type === "CO" ? "IO" : "SO";
  let parent = entity.parentRef;
  const seen = new Set<string>();
  while (parent) {
    if (crumbs.length >= MAX_BREADCRUMBS || seen.has(parent))
      return { crumbs: crumbs.reverse(), complete: false };
    seen.add(parent);
    let e: Entity;
    try {
      e = await ctx.entity.get(parent, nextType, ctx.signal);
    } catch (err) {
      if (isServiceError(err) && (err.status === 403 || err.status === 404)) {
        return { crumbs: crumbs.reverse(), complete: false };
      }
      throw err;
    }
    crumbs.push({ ref: e.ref, title: e.title });
    parent = e.parentRef;
    nextType = "SO";
  }
  return { crumbs: crumbs.reverse(), complete: true };
}

export interface Named {
  ref: string;
  type: EntityType;
  title: string;
}

/**
 * Titles and kinds of entities known by ref only (an event action's entity, a search hit's parent), one
 * GET each, a few at a time, at most `max` of them; the kinds in `tryTypes` are tried in order, since a bare
 * ref does not say what it names. An entity the caller may not read, or that is gone, is left out: the
 * answer then names it by ref only, as it does after any other failure here.
 */
export async function nameRefs(
  ctx: ToolContext,
  refs: readonly string[],
  tryTypes: readonly EntityType[],
  max: number,
): Promise<Map<string, Named>> {
  const wanted = [...new Set(refs)].slice(0, max);
  const named = await mapLimit(wanted, 4, async (ref): Promise<Named | undefined> => {
    for (const type of tryTypes) {
      try {
        const e = await ctx.entity.get(ref, type, ctx.signal);
        return { ref, type: e.type, title: e.title };
      } catch (err) {
        if (isNotFound(err)) continue;
        // Names are an extra: any other failure only loses this one (a cancelled call still ends).
        if (ctx.signal.aborted) throw err;
        return undefined;
      }
    }
    return undefined;
  });
  return new Map(named.filter((n): n is Named => n !== undefined).map((n) => [n.ref, n]));
}

/** Runs `fn` over `items` with at most `limit` calls in flight; results in input order. */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
