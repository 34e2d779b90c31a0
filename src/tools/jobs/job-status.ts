import { createHash, randomUUID } from "node:crypto";
import { createWriteStream } from "node:fs";
import { link, mkdir, unlink } from "node:fs/promises";
import { join } from "node:path";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { pathToFileURL } from "node:url";
import { z } from "zod";
import { type ActionDetail, FINAL_STATES, looksLikeToken, type Progress } from "../../api/actions.js";
import type { Entity } from "../../api/entity.js";
import { isServiceError } from "../../api/errors.js";
import { existingSaveTarget } from "../../local/save-target.js";
import type { ToolContext } from "../context.js";
import { defineTool, UserInputError } from "../define.js";
import { mapLimit } from "../support/entities.js";
import { clip, formatBytes, lines, plural } from "../support/text.js";

/**
 * One status tool for every job the service runs as an action (ingest, export, move, security-tag change,
 * deletion, recovery, CSV edit, ...): the job handle is the service's own progress token, so it works after
 * a restart and from any server instance. Optionally waits (bounded), sending progress notifications. A
 * finished ingest names what it created, with titles; a finished export is downloaded into the download
 * folder (byte count and any digest the service states verified, SHA-256 reported) and offered as a link.
 */

const MAX_WAIT_SECS = 30;
const MAX_NAMED = 20;
const MAX_ERRORS = 20;
const PROGRESS_EVERY = 4 * 1024 * 1024;

const input = z.object({
  job: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .describe("Job handle returned by `ingest`, `export`, a move, a deletion…"),
  waitSeconds: z
    .number()
    .int()
    .min(0)
    .max(MAX_WAIT_SECS)
    .default(0)
    .describe(`Wait up to this long for the job to finish (max ${MAX_WAIT_SECS}), reporting progress`),
});

const named = z.object({ ref: z.string(), title: z.string(), path: z.string().optional() });

const output = z.object({
  job: z.string(),
  kind: z.string().optional(),
  state: z.string(),
  finished: z.boolean(),
  percentage: z.number().optional(),
  total: z.number().optional(),
  done: z.number().optional(),
  failed: z.number().optional(),
  message: z.string().optional(),
  started: z.string().optional(),
  completed: z.string().optional(),
  errors: z.array(z.object({ message: z.string(), ref: z.string().optional(), item: z.number().optional() })),
  moreErrors: z.number().optional(),
  target: z.object({ ref: z.string(), title: z.string().optional() }).optional(),
  created: z.array(named).optional(),
  moreCreated: z.number().optional(),
  folders: z.array(named).optional(),
  package: z
    .object({
      path: z.string(),
      bytes: z.number(),
      sha256: z.string().optional(),
      verified: z.array(z.string()),
      savedEarlier: z.boolean().optional(),
    })
    .optional(),
  note: z.string().optional(),
});

type Output = z.infer<typeof output>;

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

async function poll(ctx: ToolContext, token: string): Promise<Progress> {
  try {
    return await ctx.api.actions.progress(token, ctx.signal);
  } catch (err) {
    if (isServiceError(err) && (err.isNotFound || err.status === 400)) {
      throw new UserInputError(
        `The service knows no job ${token}. Job handles are what \`ingest\`, \`export\` and the other job-starting tools return; check it was copied whole.`,
      );
    }
    throw err;
  }
}

/** Item detail is extra: a caller who may not see it (403) or a service without listings (404) still gets the state. */
async function detailOf(ctx: ToolContext, kind: string, token: string): Promise<ActionDetail | undefined> {
  try {
    return await ctx.api.actions.detail(kind, token, { max: 1000, signal: ctx.signal });
  } catch (err) {
    if (isServiceError(err) && (err.status === 403 || err.status === 404)) return undefined;
    throw err;
  }
}

async function titleOf(
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
async function ingestResult(
  ctx: ToolContext,
  detail: ActionDetail,
): Promise<Pick<Output, "created" | "moreCreated" | "folders">> {
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
async function savePackage(ctx: ToolContext, token: string): Promise<NonNullable<Output["package"]>> {
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
  let bytes = 0;
  let nextReport = PROGRESS_EVERY;
  const meter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      bytes += chunk.length;
      for (const h of hashes.values()) h.update(chunk);
      if (bytes >= nextReport) {
        nextReport = bytes + PROGRESS_EVERY;
        void ctx.progress(
          bytes,
          total,
          `downloaded ${formatBytes(bytes)}${total ? ` of ${formatBytes(total)}` : ""}`,
        );
      }
      done(null, chunk);
    },
  });
  try {
    await pipeline(pkg.stream, meter, createWriteStream(part, { flags: "wx" }), { signal: ctx.signal });
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

function stateLine(p: Progress): string {
  const counts =
    p.total !== undefined
      ? `: ${p.done ?? 0} of ${p.total} done${p.failed ? `, ${p.failed} failed` : ""}`
      : p.failed
        ? `: ${p.failed} failed`
        : "";
  const pct = p.percentage !== undefined ? ` (${p.percentage}%)` : "";
  return `Job ${p.token}${p.kind ? ` (${p.kind})` : ""}: ${p.status}${pct}${counts}.`;
}

export default defineTool({
  name: "job_status",
  title: "Job status",
  description:
    "State, progress and result of a job (ingest, export, move, re-tag, deletion, CSV edit) by its handle. Names what an ingest created; downloads a finished export into the download folder, verified. waitSeconds waits for it to finish.",
  toolset: "jobs",
  localOnly: true,
  transfersFiles: true,
  inputSchema: input,
  outputSchema: output,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler(args, ctx: ToolContext) {
    const token = args.job;
    if (!looksLikeToken(token)) {
      throw new UserInputError(
        `"${clip(token, 60)}" is not a job handle; handles are UUIDs returned by \`ingest\`, \`export\` and other job-starting tools.`,
      );
    }
    let p = await poll(ctx, token);
    const until = Date.now() + args.waitSeconds * 1000;
    let interval = 250;
    while (!FINAL_STATES.has(p.status) && p.status !== "PENDING" && Date.now() < until) {
      await ctx.progress(p.percentage ?? 0, 100, p.message ?? `${p.status.toLowerCase()}`);
      await sleep(Math.min(interval, Math.max(0, until - Date.now())), ctx.signal);
      interval = Math.min(2000, interval * 2);
      p = await poll(ctx, token);
    }
    const finished = FINAL_STATES.has(p.status);
    const errors = p.errors.slice(0, MAX_ERRORS).map((e) => ({
      message: e.message,
      ...(e.entityRef ? { ref: e.entityRef } : {}),
      ...(e.item !== undefined ? { item: e.item } : {}),
    }));
    const out: Output = {
      job: token,
      ...(p.kind ? { kind: p.kind } : {}),
      state: p.status,
      finished,
      ...(p.percentage !== undefined ? { percentage: p.percentage } : {}),
      ...(p.total !== undefined ? { total: p.total } : {}),
      ...(p.done !== undefined ? { done: p.done } : {}),
      ...(p.failed !== undefined ? { failed: p.failed } : {}),
      ...(p.message ? { message: p.message } : {}),
      ...(p.created ? { started: p.created } : {}),
      ...(p.completed ? { completed: p.completed } : {}),
      errors,
      ...(p.errors.length > errors.length ? { moreErrors: p.errors.length - errors.length } : {}),
    };
    const links: { uri: string; name: string; mimeType?: string; description?: string }[] = [];
    if (p.kind) {
      const detail = await detailOf(ctx, p.kind, token);
      if (detail?.action.entity) {
        const type = detail.action.entity.type;
        const t = await titleOf(
          ctx,
          detail.action.entity.ref,
          type === "SO" || type === "IO" || type === "CO" ? type : undefined,
        );
        out.target = { ref: detail.action.entity.ref, ...(t ? { title: t.title } : {}) };
      }
      if (finished && p.kind === "ingest" && detail) Object.assign(out, await ingestResult(ctx, detail));
      if (finished && p.kind === "ingest" && !detail) {
        out.note =
          "The service did not list this ingest's items to you, so the new assets cannot be named here.";
      }
    }
    if (p.kind === "export" && (p.status === "COMPLETED" || p.status === "FINISHED_MIXED_OUTCOME")) {
      out.package = await savePackage(ctx, token);
      links.push({
        uri: pathToFileURL(out.package.path).href,
        name: `export-${token}.zip`,
        mimeType: "application/zip",
        description: `The exported package, ${out.package.bytes} bytes`,
      });
    }
    const pkg = out.package;
    const text = lines(
      stateLine(p),
      p.message && `The service says: ${clip(p.message, 400)}`,
      out.target && `Target: "${clip(out.target.title ?? "(not visible to you)", 80)}" (${out.target.ref}).`,
      !!out.created?.length &&
        `Created ${plural(out.created.length + (out.moreCreated ?? 0), "asset")}: ${out.created
          .map((c) => `"${clip(c.title, 60)}" ${c.ref}${c.path ? ` (${clip(c.path, 80)})` : ""}`)
          .join("; ")}${out.moreCreated ? `; and ${out.moreCreated} more` : ""}.`,
      !!out.folders?.length &&
        `In ${out.folders.map((f) => `folder "${clip(f.title, 60)}" ${f.ref}`).join(", ")}.`,
      ...errors.map(
        (e) =>
          `Failed${e.item !== undefined ? ` item ${e.item}` : ""}${e.ref ? ` (${e.ref})` : ""}: ${clip(e.message, 300)}`,
      ),
      !!out.moreErrors && `… and ${out.moreErrors} more failures.`,
      pkg &&
        (pkg.savedEarlier
          ? `The package was saved earlier: ${pkg.path} (${pkg.bytes} bytes).`
          : `Saved the package: ${pkg.path} (${pkg.bytes} bytes), SHA-256 ${pkg.sha256}; verified: ${pkg.verified.join(", ") || "nothing the service states (it sent no length or digest)"}.`),
      out.note,
      !finished &&
        (p.status === "PENDING"
          ? "It waits for a person (a manager's approval); check again later."
          : `Still running; call \`job_status\` again (waitSeconds up to ${MAX_WAIT_SECS} waits here).`),
    );
    return { structured: out, text, ...(links.length ? { links } : {}) };
  },
});
