import { createHash, randomUUID } from "node:crypto";
import { createWriteStream } from "node:fs";
import { link, mkdir, unlink } from "node:fs/promises";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { z } from "zod";
import type { ActionDetail } from "../../api/actions.js";
import type { Entity } from "../../api/entity.js";
import { isServiceError } from "../../api/errors.js";
import { existingSaveTarget } from "../../local/save-target.js";
import type { ToolContext } from "../context.js";
import { UserInputError } from "../define.js";
import { mapLimit } from "./entities.js";
import { byteMeter } from "./meter.js";
import { clip, formatBytes, plural } from "./text.js";

/**
 * What a finished job brought: the assets an ingest created (named, with titles) and an export's package
 * saved into the download folder, verified. `job_status` reports them, and so do `ingest` and `export`
 * themselves when their job finished within the wait (support/job-wait.ts).
 */

const MAX_NAMED = 20;
const PROGRESS_EVERY = 4 * 1024 * 1024;

export const namedOut = z.object({ ref: z.string(), title: z.string(), path: z.string().optional() });

export const packageOut = z.object({
  path: z.string(),
  bytes: z.number(),
  sha256: z.string().optional(),
  verified: z.array(z.string()),
  savedEarlier: z.boolean().optional(),
});
export type SavedPackage = z.infer<typeof packageOut>;

export interface IngestResult {
  created?: z.infer<typeof namedOut>[];
  moreCreated?: number;
  folders?: z.infer<typeof namedOut>[];
}

export async function titleOf(
  ctx: ToolContext,
  ref: string,
  type?: "SO" | "IO" | "CO",
): Promise<Entity | undefined> {
  try {
    return await ctx.entity.get(ref, type, ctx.signal);
  } catch (err) {
    if (isServiceError(err) && (err.status === 403 || err.status === 404)) return undefined;
    throw err;
  }
}

/** The assets an ingest created (named, with titles), and the folders they are in. */
export async function ingestResult(ctx: ToolContext, detail: ActionDetail): Promise<IngestResult> {
  const done = detail.items.filter((i) => i.outcome === "done" && i.entityRef);
  const shown = done.slice(0, MAX_NAMED);
  const assets = await mapLimit(shown, 4, async (i) => {
    const e = await titleOf(ctx, i.entityRef ?? "", "IO");
    const path = i.message?.replace(/ ingested$/, "");
    return { item: i, entity: e, path };
  });
  const created = assets.map((a) => ({
    ref: a.item.entityRef ?? "",
    title: a.entity?.title ?? "(not visible to you)",
    ...(a.path ? { path: a.path } : {}),
  }));
  const destination = detail.action.entity?.ref;
  const parents = [
    ...new Set(assets.map((a) => a.entity?.parentRef).filter((r): r is string => !!r && r !== destination)),
  ].slice(0, 10);
  const folders = (await mapLimit(parents, 4, (r) => titleOf(ctx, r, "SO")))
    .filter((e): e is Entity => e !== undefined)
    .map((e) => ({ ref: e.ref, title: e.title }));
  // Items beyond the page read are counted as more (some of them may be failures).
  const more = done.length - shown.length + Math.max(0, detail.totalItems - detail.items.length);
  return {
    created,
    ...(more > 0 ? { moreCreated: more } : {}),
    ...(folders.length ? { folders } : {}),
  };
}

const NODE_HASH: Record<string, string> = { sha256: "SHA-256", sha512: "SHA-512", sha1: "SHA-1", md5: "MD5" };

/** Saves a finished export's package as `export-<job>.zip` in the download folder, verified; never overwrites. */
export async function savePackage(ctx: ToolContext, token: string): Promise<SavedPackage> {
  const folder = ctx.config.downloadDir;
  if (!folder) {
    throw new UserInputError(
      "The export is complete, but no download folder is configured (PRESERVATION_DOWNLOAD_DIR) to save it in.",
    );
  }
  const name = `export-${token}.zip`;
  const target = join(folder, name);
  const existing = await existingSaveTarget(target);
  if (existing) {
    return { path: target, bytes: existing.size, verified: [], savedEarlier: true };
  }
  await mkdir(folder, { recursive: true });
  const part = join(folder, `.${name}.${randomUUID()}.part`);
  const pkg = await ctx.api.export.download(token, ctx.signal);
  const algs = new Set(["sha256", ...Object.keys(pkg.digests)]);
  const hashes = new Map([...algs].map((a) => [a, createHash(a)]));
  const total = pkg.length;
  const { meter, bytes: received } = byteMeter(
    PROGRESS_EVERY,
    (n) =>
      void ctx.progress(n, total, `downloaded ${formatBytes(n)}${total ? ` of ${formatBytes(total)}` : ""}`),
    (chunk) => {
      for (const h of hashes.values()) h.update(chunk);
    },
  );
  try {
    await pipeline(pkg.stream, meter, createWriteStream(part, { flags: "wx" }), { signal: ctx.signal });
    const bytes = received();
    const verified: string[] = [];
    if (total !== undefined) {
      if (bytes !== total) throw new Error(`received ${bytes} bytes, but the service announced ${total}`);
      verified.push(`${bytes} bytes as announced`);
    }
    const digests = new Map([...hashes].map(([a, h]) => [a, h.digest("hex")]));
    for (const [alg, stated] of Object.entries(pkg.digests)) {
      if (digests.get(alg) !== stated.toLowerCase()) {
        throw new Error(`the package's ${NODE_HASH[alg] ?? alg} does not match the one the service states`);
      }
      verified.push(NODE_HASH[alg] ?? alg);
    }
    await link(part, target);
    await ctx.progress(bytes, bytes, "saved");
    return { path: target, bytes, sha256: digests.get("sha256") ?? "", verified };
  } catch (err) {
    if (err instanceof UserInputError || isServiceError(err)) throw err;
    if ((err as NodeJS.ErrnoException).code === "EEXIST") {
      // Saved meanwhile by another call, or a link appeared there: looked at without following it.
      const st = await existingSaveTarget(target);
      if (st) return { path: target, bytes: st.size, verified: [], savedEarlier: true };
    }
    if (ctx.signal.aborted) throw new UserInputError("The download was cancelled. Nothing was saved.");
    throw new UserInputError(
      `The export finished, but saving its package failed: ${(err as Error).message}. Nothing was saved; call \`job_status\` again to retry.`,
    );
  } finally {
    await unlink(part).catch(() => {});
  }
}

/** The lines naming what an ingest created and the folders it is in (none when nothing is named). */
export function createdLines(r: IngestResult): string[] {
  const out: string[] = [];
  if (r.created?.length) {
    out.push(
      `Created ${plural(r.created.length + (r.moreCreated ?? 0), "asset")}: ${r.created
        .map((c) => `"${clip(c.title, 60)}" ${c.ref}${c.path ? ` (${clip(c.path, 80)})` : ""}`)
        .join("; ")}${r.moreCreated ? `; and ${r.moreCreated} more` : ""}.`,
    );
  }
  if (r.folders?.length) {
    out.push(`In ${r.folders.map((f) => `folder "${clip(f.title, 60)}" ${f.ref}`).join(", ")}.`);
  }
  return out;
}

/** Where a finished export's package was saved, and what of it was verified. */
export function packageLine(pkg: SavedPackage): string {
  return pkg.savedEarlier
    ? `The package was saved earlier: ${pkg.path} (${pkg.bytes} bytes).`
    : `Saved the package: ${pkg.path} (${pkg.bytes} bytes), SHA-256 ${pkg.sha256}; verified: ${pkg.verified.join(", ") || "nothing the service states (it sent no length or digest)"}.`;
}

/** What a finished ingest created, read from the service's item listing; nothing when it lists none to us. */
export async function ingestOutcome(ctx: ToolContext, job: string): Promise<IngestResult> {
  try {
    const detail = await ctx.api.actions.detail("ingest", job, { max: 1000, signal: ctx.signal });
    return await ingestResult(ctx, detail);
  } catch (err) {
    // The ingest is done either way: a listing we cannot read only leaves the assets unnamed here.
    ctx.log.debug({ job, err: (err as Error).message }, "ingest items not read");
    return {};
  }
}
