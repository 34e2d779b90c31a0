import { z } from "zod";
import type { Entity } from "../../api/entity.js";
import { isServiceError } from "../../api/errors.js";
import type { DeletedEntity } from "../../api/lifecycle.js";
import { paginate } from "../../api/walk.js";
import { type OpenedLocalFile, openLocalFile } from "../../local/open-file.js";
import type { ToolContext } from "../context.js";
import { UserInputError } from "../define.js";
import { mapLimit } from "../support/entities.js";
import { type JobSettlement, jobFields, jobState } from "../support/job-wait.js";
import { itemOut, spoken, toItem } from "../support/kinds.js";
import { clip, plural } from "../support/text.js";
import {
  type CountedContents,
  contentsPhrase,
  countContents,
  inPlace,
  placeOf,
  sampleLine,
} from "../support/writes.js";

/**
 * What the lifecycle tools share: the bounded look at what a deletion would take (counts by
 * walking, retention that would block it), finding an entry of the recycle bin, and local files.
 */

/** At most this many assets have their retention assignments read for a deletion's plan. */
export const MAX_RETENTION_CHECKS = 50;
/** Entries of the recycle bin looked through to find one by ref. */
const MAX_BIN_SCAN = 5000;

/** `folder “Estate papers”`. */
export function named(e: Pick<Entity, "type" | "title">): string {
  return `${spoken(e.type)} “${clip(e.title, 120)}”`;
}

/** `1,234 bytes`: exact, as people compare sizes. */
export function bytes(n: number): string {
  return `${n.toLocaleString("en")} byte${n === 1 ? "" : "s"}`;
}

export interface Blocker {
  assetRef: string;
  assetTitle: string;
  policy: string;
  policyName?: string;
  startDate?: string;
}

export interface DeletionScope extends CountedContents {
  /** Unexpired retention found on the assets checked. */
  blockers: Blocker[];
  /** Assets whose retention was read; undefined when it could not be read (no permission). */
  retentionChecked?: number;
}

const NOTHING_BELOW: CountedContents = { folders: 0, assets: 0, complete: true, titles: [] };

/**
 * What deleting `e` would take: folders and assets below it (bounded walk) and unexpired retention on
 * the first MAX_RETENTION_CHECKS assets (the asset itself, or assets below the folder). Reads only.
 */
export async function deletionScope(ctx: ToolContext, e: Entity): Promise<DeletionScope> {
  const assetsToCheck: { ref: string; title: string }[] =
    e.type === "IO" ? [{ ref: e.ref, title: e.title }] : [];
  const contents =
    e.type === "SO"
      ? await countContents(ctx, e.ref, (asset) => {
          if (assetsToCheck.length < MAX_RETENTION_CHECKS) assetsToCheck.push(asset);
        })
      : NOTHING_BELOW;
  let retentionChecked: number | undefined = assetsToCheck.length;
  const blockers: Blocker[] = [];
  try {
    const found = await mapLimit(assetsToCheck, 4, async (a) => {
      const page = await ctx.api.lifecycle.retentionAssignments(a.ref, { max: 100, signal: ctx.signal });
      return page.items
        .filter((r) => !r.expired)
        .map((r) => ({ assetRef: a.ref, assetTitle: a.title, policy: r.policy, startDate: r.startDate }));
    });
    blockers.push(...found.flat());
  } catch (err) {
    // Retention the caller may not read (or a service without it) is not a reason to refuse the plan:
    // the service checks again when the deletion is submitted and approved.
    if (!isServiceError(err) || ![403, 404, 405, 501].includes(err.status)) throw err;
    retentionChecked = undefined;
  }
  const names = new Map<string, string | undefined>();
  for (const b of blockers) {
    if (!names.has(b.policy)) {
      names.set(
        b.policy,
        await ctx.api.lifecycle.retentionPolicyName(b.policy, ctx.signal).catch(() => undefined),
      );
    }
    const n = names.get(b.policy);
    if (n) b.policyName = n;
  }
  return {
    ...contents,
    blockers,
    ...(retentionChecked !== undefined ? { retentionChecked } : {}),
  };
}

/** What a deletion's plan shows of `e`: where it is, and what goes with it. Refuses under retention. */
export async function examineDeletion(
  ctx: ToolContext,
  e: Entity,
): Promise<{ path: string; scope: DeletionScope }> {
  const [path, scope] = await Promise.all([placeOf(ctx, e), deletionScope(ctx, e)]);
  if (scope.blockers.length > 0) throw retentionRefusal(e, scope.blockers);
  return { path, scope };
}

/** `folder “Estate papers” and everything in it (1 folder and 2 assets)`, or the asset named. */
export function whatGoes(e: Entity, s: DeletionScope | undefined): string {
  return e.type === "SO" && s ? `${named(e)} and everything in it (${contentsPhrase(s)})` : named(e);
}

/** The plan's first details: the entity where it is, then the first titles of what is in it. */
export function deletionPlace(e: Entity, path: string): string {
  return `${named(e)} ${e.ref} ${inPlace(path)}; security tag ${e.securityTag}.`;
}

export function deletionSample(scope: DeletionScope): string[] {
  if (!scope.titles.length) return [];
  return [sampleLine(scope.titles, scope.folders + scope.assets > scope.titles.length ? ", …" : "")];
}

/** The refusal a deletion under retention gets before anything is sent. */
export function retentionRefusal(e: Entity, blockers: Blocker[]): UserInputError {
  const shown = blockers
    .slice(0, 5)
    .map(
      (b) =>
        `asset “${clip(b.assetTitle, 80)}” ${b.assetRef} is under retention policy ${b.policyName ? `“${b.policyName}” ` : ""}${b.policy}${b.startDate ? ` (since ${b.startDate})` : ""}`,
    );
  const more = blockers.length > shown.length ? `; and ${blockers.length - shown.length} more` : "";
  return new UserInputError(
    `${named(e)} cannot be deleted while retention applies: ${shown.join("; ")}${more}. Wait until it expires, or remove an assignment made in error with the retention tools. Nothing was deleted.`,
  );
}

/** The recycle bin entry whose top entity is `ref` (scanning at most MAX_BIN_SCAN entries). */
export async function findInBin(ctx: ToolContext, ref: string): Promise<DeletedEntity | undefined> {
  const want = ref.toLowerCase();
  for await (const item of paginate((req) => ctx.api.lifecycle.recycleBin(req), {
    pageSize: 500,
    limit: MAX_BIN_SCAN,
    signal: ctx.signal,
  })) {
    if (item.ref.toLowerCase() === want) return item;
  }
  return undefined;
}

/**
 * The recycle bin entry whose top entity is `ref`; otherwise a UserInputError: `ref` is not there, then
 * `what` (the tool's own words: what it can do and what changed).
 */
export async function binEntry(ctx: ToolContext, ref: string, what: string): Promise<DeletedEntity> {
  const b = await findInBin(ctx, ref);
  if (!b)
    throw new UserInputError(`${ref} is not in the recycle bin (or not at the top of a deletion); ${what}`);
  return b;
}

/** What a job on a recycle bin entry (recovery, final deletion) answers besides the job's state. */
export const binOut = {
  ...jobFields,
  entity: itemOut,
  deletion: z.string(),
  entities: z.number().int().optional(),
};

export function binOutcome(settled: JobSettlement, b: DeletedEntity) {
  return {
    ...jobState(settled),
    entity: toItem(b),
    deletion: b.deletion,
    ...(b.entities !== undefined ? { entities: b.entities } : {}),
  };
}

/** `folder “Estate papers” 6a1e… (and 5 more entities deleted with it)`. */
export function binLine(b: DeletedEntity): string {
  const more =
    b.entities && b.entities > 1
      ? ` and the ${plural(b.entities - 1, "entity", "entities")} deleted with it`
      : "";
  return `${spoken(b.type)} “${clip(b.title, 120)}” ${b.ref}${more}`;
}

// ---- local files ------------------------------------------------------------------------------------------

export const localPath = z
  .string()
  .trim()
  .min(1)
  .max(4096)
  .describe("Local file inside the allowed ingest folders (absolute, or relative to the first one)");

/** A local file opened once: hashed, previewed and sent from the same handle (src/local/open-file.ts). */
export type LocalFile = OpenedLocalFile;

/** A local file inside the person's ingest roots, opened without following links, with its SHA-256. */
export async function localFile(ctx: ToolContext, requested: string): Promise<LocalFile> {
  return openLocalFile(ctx.config.ingestRoots, requested, ctx.signal);
}

/**
 * The file's bytes as a stream for an upload, reporting progress (at most every 1 %) when the client
 * asked for it. The bytes come from the handle that was hashed; the service checks the SHA-256 against
 * what it received besides.
 */
export function uploadStream(ctx: ToolContext, file: LocalFile) {
  const stream = file.stream(ctx.signal);
  let sent = 0;
  let reported = 0;
  const step = Math.max(1, Math.floor(file.size / 100));
  stream.on("data", (chunk) => {
    sent += (chunk as Buffer).length;
    if (sent - reported >= step || sent === file.size) {
      reported = sent;
      void ctx.progress(sent, file.size, `${bytes(sent)} of ${bytes(file.size)} sent`).catch(() => {});
    }
  });
  return stream;
}
