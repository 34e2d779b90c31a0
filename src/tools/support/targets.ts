import { z } from "zod";
import { type Entity, type EntityType, looksLikeRef } from "../../api/entity.js";
import { toUserMessage } from "../../server/errors.js";
import type { ToolContext } from "../context.js";
import { type ConfirmPlan, type TargetRef, UserInputError } from "../define.js";
import { loadEntity, mapLimit } from "./entities.js";
import { jobFields, jobOutcome, SETTLE_MS, settleJob } from "./job-wait.js";
import { spoken } from "./kinds.js";
import { clip, plural } from "./text.js";

/**
 * Many targets in one call: a list of refs, or everything directly inside a folder (of the kinds the act
 * takes). Each target is examined before anything changes: what would
 * change, what is already so, and what is refused and why (wrong kind, or a tag on which the caller lacks
 * the permission the act needs), so a refusal shows in the preview rather than half-way. One preview, one
 * confirmation whose token carries every target's fingerprint, one answer listing each target compactly.
 */

/** Targets changed per call; the token carries each one's fingerprint, so it grows with them. */
export const MAX_TARGETS = 50;
/** Entities a folder selection reads (it pages through the folder's children). */
const MAX_LISTED = 1000;
/** Targets examined per call (unchanged and refused ones included). */
const MAX_EXAMINED = 200;
/** Lines of each kind in a preview or an answer. */
const MAX_LINES = 20;

// Bare strings (every bound costs tokens in each tools/list); refs and their number are checked in isMany.
/** The selection parameters each many-target tool adds to its schema (next to its own optional `ref`). */
export const manyParams = {
  refs: z.array(z.string().trim()).optional().describe("Or several"),
  folder: z.string().trim().optional().describe("Or all in this folder"),
};
export interface Selection {
  ref?: string;
  refs?: string[];
  folder?: string;
}

/** Whether the call names many targets (refs or folder) rather than one ref. */
export function isMany(s: Selection): boolean {
  if (s.refs && (s.refs.length === 0 || s.refs.length > MAX_TARGETS))
    throw new UserInputError(
      `\`refs\` takes 1 to ${MAX_TARGETS} refs (${s.refs.length} given); for more, call again. Nothing was changed.`,
    );
  if (s.folder !== undefined && !looksLikeRef(s.folder))
    throw new UserInputError(
      `\`folder\` "${clip(s.folder, 60)}" is not a ref; find folders with \`browse\`.`,
    );
  if ([s.ref, s.refs, s.folder].filter((x) => x !== undefined).length !== 1)
    throw new UserInputError("Give exactly one of `ref`, `refs` or `folder`. Nothing was changed.");
  return s.ref === undefined;
}

/** One target as examined: a change to make (with its fingerprint), or why not. */
export type Examined<C> =
  | { change: C; line: string; fingerprint: string }
  | { unchanged: string }
  | { refused: string };

export interface ManyPlan<C> {
  changes: { entity: Entity; change: C; line: string; fingerprint: string }[];
  unchanged: { entity: Entity; why: string }[];
  refused: { ref: string; title?: string; type?: EntityType; why: string }[];
  /** Selected but not examined: past MAX_TARGETS changes or MAX_EXAMINED examined. */
  leftOut: number;
  /** “folder “Minutes”” or “12 refs”: what was selected, for sentences. */
  from: string;
}

export interface ManyOptions<C> {
  /** Kinds the act applies to. */
  expect: readonly EntityType[];
  /** The caller needs this permission on a target's security tag (as the Security API names it). */
  permission: string;
  /** `position`: the target's place in the selection, from 1 (numbering in order). */
  examine: (e: Entity, position: number) => Promise<Examined<C>>;
}

/** The refs the selection names, in order, and what it was. */
async function selected(
  ctx: ToolContext,
  s: Selection,
  /** A folder's entities of other kinds are not selected (a retention policy is for assets). */
  expect: readonly EntityType[],
): Promise<{ refs: string[]; from: string; known: Map<string, { title: string; type: EntityType }> }> {
  if (s.refs) return { refs: [...new Set(s.refs)], from: plural(s.refs.length, "ref"), known: new Map() };
  const folder = await loadEntity(ctx, s.folder as string, {
    expect: ["SO"],
    wrongKind: () => "`folder` takes a folder; pass an asset as `ref` or in `refs`.",
  });
  const refs: string[] = [];
  const known = new Map<string, { title: string; type: EntityType }>();
  for (let start = 0; start < MAX_LISTED; ) {
    const page = await ctx.entity.children(folder.ref, { start, max: 100, signal: ctx.signal });
    for (const c of page.items)
      if (expect.includes(c.type)) {
        refs.push(c.ref);
        known.set(c.ref, { title: c.title, type: c.type });
      }
    start += page.items.length;
    if (page.items.length === 0 || start >= page.total) break;
  }
  return { refs, from: `folder “${clip(folder.title, 80)}”`, known };
}

/** Tags on which the caller may do `permission`; undefined when the service does not say (then the act decides). */
async function allowedTags(ctx: ToolContext, permission: string): Promise<Set<string> | undefined> {
  try {
    const tags = await ctx.api.admin.tagPermissions(ctx.signal);
    return new Set(tags.filter((t) => t.permissions.includes(permission)).map((t) => t.tag));
  } catch {
    return undefined;
  }
}

/** Examines the selection in order until MAX_TARGETS changes are found; changes nothing. */
export async function planMany<C>(ctx: ToolContext, s: Selection, o: ManyOptions<C>): Promise<ManyPlan<C>> {
  const [{ refs, from, known }, allowed] = await Promise.all([
    selected(ctx, s, o.expect),
    allowedTags(ctx, o.permission),
  ]);
  if (refs.length === 0)
    throw new UserInputError(`Nothing matches: ${from} holds no such entities. Nothing was changed.`);
  const plan: ManyPlan<C> = { changes: [], unchanged: [], refused: [], leftOut: 0, from };
  let next = 0;
  while (next < refs.length && plan.changes.length < MAX_TARGETS && next < MAX_EXAMINED) {
    const batch = refs.slice(next, next + Math.min(MAX_TARGETS - plan.changes.length, MAX_EXAMINED - next));
    next += batch.length;
    const first = next - batch.length;
    const seen = await mapLimit(batch, 4, async (r) => {
      const position = first + batch.indexOf(r) + 1;
      try {
        if (!looksLikeRef(r) || r.length > 100)
          throw new UserInputError(`not a ref; find refs with \`search\` or \`browse\``);
        const entity = await loadEntity(ctx, r, { expect: o.expect });
        if (allowed && !allowed.has(entity.securityTag))
          return {
            ref: r,
            entity,
            e: { refused: `you may not ${o.permission.toLowerCase()} on tag ${entity.securityTag}` },
          };
        return { ref: r, entity, e: await o.examine(entity, position) };
      } catch (err) {
        if (!(err instanceof UserInputError)) throw err;
        return {
          ref: r,
          // "<ref> is a folder ("Title"), not an asset. …" reads "is a folder, not an asset. …" after the name.
          e: {
            refused: err.message
              .replace(/ Nothing was (changed|moved)\.$/, "")
              .replace(/^\S+ is (an? [a-z ]+?) \(".*?"\), /, "is $1, "),
          } as Examined<C>,
        };
      }
    });
    for (const { ref: r, entity, e } of seen) {
      if ("change" in e && entity) plan.changes.push({ entity, ...e });
      else if ("unchanged" in e && entity) plan.unchanged.push({ entity, why: e.unchanged });
      else if ("refused" in e)
        plan.refused.push({
          ref: r,
          title: entity?.title ?? known.get(r)?.title,
          type: entity?.type ?? known.get(r)?.type,
          why: e.refused,
        });
    }
  }
  plan.leftOut = refs.length - next;
  return plan;
}

const named = (e: { ref: string; title?: string; type?: EntityType }) =>
  `${e.type ? `${spoken(e.type)} ` : ""}${e.title !== undefined ? `“${clip(e.title, 80)}” ` : ""}${e.ref}`;

function bounded(items: string[]): string[] {
  return items.length > MAX_LINES
    ? [...items.slice(0, MAX_LINES), `  … and ${items.length - MAX_LINES} more`]
    : items;
}

/** What was not looked at, and how to get it done. */
function leftOutLine(p: ManyPlan<unknown>): string | false {
  return (
    p.leftOut > 0 &&
    `${p.leftOut} more selected and left out (at most ${MAX_TARGETS} changes a call): once this is done, call again with the same selection for the rest.`
  );
}

/** The lines both a preview and an answer end with: what is left alone and why. */
function notChanged(p: ManyPlan<unknown>): string[] {
  return [
    ...(p.refused.length ? [`Refused (${p.refused.length}, not changed):`] : []),
    ...bounded(p.refused.map((r) => `  ${named(r)}: ${r.why}`)),
    ...(p.unchanged.length ? [`Already so (${p.unchanged.length}, left alone):`] : []),
    ...bounded(p.unchanged.map((u) => `  ${named(u.entity)}: ${u.why}`)),
    ...[leftOutLine(p)].filter((l): l is string => Boolean(l)),
  ];
}

/** The confirmation plan of many targets; undefined when nothing would change (the handler says why). */
export function manyConfirmPlan(
  p: ManyPlan<unknown>,
  summary: string,
  /** Other things the act depends on (a destination folder), bound to the token too. */
  also: ConfirmPlan["targets"] = [],
): ConfirmPlan | undefined {
  if (p.changes.length === 0) return undefined;
  return {
    summary,
    details: [...bounded(p.changes.map((c) => `  ${named(c.entity)}: ${c.line}`)), ...notChanged(p)],
    targets: [
      ...p.changes.map((c) => ({ ref: c.entity.ref, title: c.entity.title, fingerprint: c.fingerprint })),
      ...also,
    ],
    preview: {
      changes: p.changes.length,
      unchanged: p.unchanged.length,
      refused: p.refused.length,
      leftOut: p.leftOut,
    },
  };
}

/** A job-starting tool's job fields (support/job-wait.ts), present when it acted on one target. */
export const jobFieldsWhenOne = {
  job: jobFields.job.optional(),
  state: jobFields.state.optional(),
  finished: jobFields.finished.optional(),
  secondsLeft: jobFields.secondsLeft,
};

export const resultShape = z.object({
  ref: z.string(),
  title: z.string().optional(),
  outcome: z.enum(["done", "started", "unchanged", "refused", "failed"]),
  detail: z.string().optional(),
  job: z.string().optional(),
});
export type TargetResult = z.infer<typeof resultShape>;

/**
 * Carries out the planned changes (a few at a time); one that fails is reported with the service's reason
 * and the others go on. `act` may return a job handle: the answer waits briefly for those jobs.
 */
export async function runMany<C>(
  ctx: ToolContext,
  tool: string,
  p: ManyPlan<C>,
  act: (entity: Entity, change: C) => Promise<string | undefined>,
): Promise<{ results: TargetResult[]; text: string[]; targets: TargetRef[] }> {
  const done = await mapLimit(p.changes, 4, async (c): Promise<TargetResult> => {
    const base = { ref: c.entity.ref, title: c.entity.title, detail: c.line };
    try {
      const job = await act(c.entity, c.change);
      return job ? { ...base, outcome: "started", job } : { ...base, outcome: "done" };
    } catch (err) {
      return {
        ...base,
        outcome: "failed",
        detail: toUserMessage(err, tool).replace(/ Nothing was changed\.$/, ""),
      };
    }
  });
  await settle(ctx, done);
  const results: TargetResult[] = [
    ...done,
    ...p.refused.map((r) => ({
      ref: r.ref,
      ...(r.title !== undefined ? { title: r.title } : {}),
      outcome: "refused" as const,
      detail: r.why,
    })),
    ...p.unchanged.map((u) => ({
      ref: u.entity.ref,
      title: u.entity.title,
      outcome: "unchanged" as const,
      detail: u.why,
    })),
  ];
  const by = (o: TargetResult["outcome"]) => done.filter((r) => r.outcome === o);
  const running = by("started");
  const failed = by("failed");
  const ok = by("done");
  const text = [
    ...(ok.length ? [`Done (${ok.length}):`] : []),
    ...bounded(ok.map((r) => `  ${named(r)}: ${r.detail}`)),
    ...(running.length ? [`Still running (${running.length}; follow with \`job_status\`):`] : []),
    ...bounded(running.map((r) => `  ${named(r)}: ${r.detail} (job ${r.job})`)),
    ...(failed.length ? [`Failed (${failed.length}, not changed):`] : []),
    ...bounded(failed.map((r) => `  ${named(r)}: ${r.detail}`)),
    ...notChanged(p),
  ];
  return { results, text, targets: p.changes.map((c) => ({ ref: c.entity.ref, title: c.entity.title })) };
}

/**
 * Waits briefly (one shared deadline, support/job-wait.ts) for the jobs just started, so work done in
 * milliseconds is answered as done (one call less) and a failed one says why; jobs still running keep their
 * handles.
 */
async function settle(ctx: ToolContext, results: TargetResult[]): Promise<void> {
  const until = Date.now() + SETTLE_MS;
  await mapLimit(
    results.filter((r) => r.outcome === "started" && r.job),
    4,
    async (r) => {
      const s = await settleJob(ctx, r.job as string, Math.max(0, until - Date.now()));
      if (s.state === "COMPLETED") {
        r.outcome = "done";
        delete r.job;
      } else if (s.finished) {
        r.outcome = "failed";
        r.detail = jobOutcome(s);
      }
    },
  );
}

/** A many-target tool's answer: the headline, a line per target, the audit's targets (none: only read). */
export function manyAnswer(verb: string, p: ManyPlan<unknown>, run: Awaited<ReturnType<typeof runMany>>) {
  return {
    text: [manyHeadline(verb, p, run.results), ...run.text].join("\n"),
    ...(p.changes.length ? { audit: { targets: run.targets } } : { onlyRead: true as const }),
  };
}

/** The one-line headline of an answer: “Moves to “/X” (folder “Y”): 6 done, 1 refused.”. */
export function manyHeadline(verb: string, p: ManyPlan<unknown>, results: TargetResult[]): string {
  const n = (o: TargetResult["outcome"]) => results.filter((r) => r.outcome === o).length;
  const parts = [
    `${n("done")} done`,
    n("started") && `${n("started")} still running`,
    n("failed") && `${n("failed")} failed`,
    n("refused") && `${n("refused")} refused`,
    n("unchanged") && `${n("unchanged")} already so`,
    p.leftOut && `${p.leftOut} left out`,
  ].filter(Boolean);
  return `${verb} (${p.from}): ${parts.join(", ")}.`;
}
