import { z } from "zod";
import { FINAL_STATES, type Progress } from "../../api/actions.js";
import type { ToolContext } from "../context.js";
import { clip, plural } from "./text.js";

/**
 * Waiting for a job a tool has just started. Most of the service's jobs (a move, a re-tag, a recovery, a CSV
 * edit) finish in milliseconds, and an answer that only says "started as job …" costs the model another call
 * before it can tell the person it is done. So every job-starting tool waits here, briefly and bounded, and
 * answers the outcome; only work still running after the wait is handed back as a job handle, with how long
 * the service's own progress suggests it will take. `job_status` waits through the same loop.
 */

/** How long a job-starting tool waits for its job before handing back the handle. */
export const SETTLE_MS = 4000;
/** The first poll comes soon (most jobs are done by then), later ones further apart. */
const FIRST_POLL_MS = 40;
const MAX_POLL_MS = 1000;

/** What every job-starting tool's structured answer says about its job. */
export const jobFields = {
  job: z.string(),
  /** The job's state when the answer was made: COMPLETED, FAILED, ACTIVE, PENDING … */
  state: z.string(),
  /** True once the job does nothing more (PENDING waits for a person, so it is not finished). */
  finished: z.boolean(),
  /** Still running: the service's progress suggests about this many more seconds. */
  secondsLeft: z.number().optional(),
};

export interface JobSettlement {
  job: string;
  state: string;
  finished: boolean;
  /** The last progress read; undefined when it could not be read (the job was started all the same). */
  progress?: Progress;
  secondsLeft?: number;
}

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

/**
 * Polls the job until it ends, waits for a person (PENDING), or `ms` pass; reports progress notifications
 * (when the client asked for them) between polls. `read` is the first poll's progress when the caller has it.
 */
export async function waitForProgress(
  ctx: ToolContext,
  job: string,
  ms: number,
  poll: (job: string) => Promise<Progress> = (j) => ctx.api.actions.progress(j, ctx.signal),
  read?: Progress,
): Promise<Progress> {
  let p = read ?? (await poll(job));
  const until = Date.now() + ms;
  let interval = FIRST_POLL_MS;
  while (!FINAL_STATES.has(p.status) && p.status !== "PENDING" && Date.now() < until) {
    await ctx.progress(p.percentage ?? 0, 100, p.message ?? p.status.toLowerCase());
    await sleep(Math.min(interval, Math.max(0, until - Date.now())), ctx.signal);
    interval = Math.min(MAX_POLL_MS, interval * 2);
    p = await poll(job);
  }
  return p;
}

/**
 * Seconds left by the service's own progress: the time spent so far, scaled by what remains (percentage, or
 * items done of the total). Undefined when the service gives nothing to go on.
 */
export function secondsLeft(p: Progress, now = Date.now()): number | undefined {
  const started = p.created ? Date.parse(p.created) : Number.NaN;
  if (Number.isNaN(started)) return undefined;
  const fraction =
    p.percentage !== undefined && p.percentage > 0
      ? p.percentage / 100
      : p.total && p.done
        ? p.done / p.total
        : undefined;
  if (fraction === undefined || fraction >= 1) return undefined;
  const spent = Math.max(0, now - started) / 1000;
  return Math.max(1, Math.round((spent * (1 - fraction)) / fraction));
}

/** The wait a tool can afford: SETTLE_MS, but well inside the per-call deadline. */
function settleBudget(ctx: ToolContext): number {
  return Math.min(SETTLE_MS, Math.floor((ctx.config.toolTimeoutSecs * 1000) / 3));
}

/**
 * Waits briefly for a job the tool has just started and says where it stands. Never throws for the wait
 * itself: the job was started, so a progress read that fails (or a cancelled wait) leaves the plain handle.
 */
export async function settleJob(
  ctx: ToolContext,
  job: string,
  ms = settleBudget(ctx),
): Promise<JobSettlement> {
  try {
    const p = await waitForProgress(ctx, job, ms);
    const finished = FINAL_STATES.has(p.status);
    const left = finished || p.status === "PENDING" ? undefined : secondsLeft(p);
    return {
      job,
      state: p.status,
      finished,
      progress: p,
      ...(left !== undefined ? { secondsLeft: left } : {}),
    };
  } catch (err) {
    ctx.log.debug({ job, err: (err as Error).message }, "job progress not read after starting it");
    return { job, state: "ACTIVE", finished: false };
  }
}

/** The structured fields (jobFields) of a settlement. */
export function jobState(s: JobSettlement): {
  job: string;
  state: string;
  finished: boolean;
  secondsLeft?: number;
} {
  return {
    job: s.job,
    state: s.state,
    finished: s.finished,
    ...(s.secondsLeft !== undefined ? { secondsLeft: s.secondsLeft } : {}),
  };
}

/** “about 40 seconds”, “about 3 minutes”. */
function duration(seconds: number): string {
  if (seconds < 90) return `about ${plural(seconds, "second")}`;
  if (seconds < 5400) return `about ${plural(Math.round(seconds / 60), "minute")}`;
  return `about ${plural(Math.round(seconds / 3600), "hour")}`;
}

/**
 * How the answer ends, saying what became of the job: `done (job …).`, `failed: … (job …).`, or, still
 * running, the handle with the progress so far and the time it will likely take.
 */
export function jobOutcome(s: JobSettlement, opts: { serviceMessage?: boolean } = {}): string {
  // serviceMessage: the closing message of a COMPLETED job is quoted only when asked (most repeat the refs).
  const p = s.progress;
  const failures = p?.errors.length
    ? `: ${p.errors
        .slice(0, 3)
        .map((e) => clip(e.message, 200))
        .join("; ")}${p.errors.length > 3 ? `; and ${p.errors.length - 3} more` : ""}`
    : p?.message
      ? `: ${clip(p.message, 300)}`
      : "";
  switch (s.state) {
    case "COMPLETED":
      // The service's closing message, where it adds to what the tool says ("Recovered 4 entities …").
      return opts.serviceMessage && p?.message
        ? `done (job ${s.job}); the service says: ${clip(p.message, 300)}.`
        : `done (job ${s.job}).`;
    case "FINISHED_MIXED_OUTCOME":
      return `finished with ${p?.failed ? plural(p.failed, "failure") : "failures"}${failures} (job ${s.job}).`;
    case "FAILED":
    case "ABORTED":
      return `failed${failures} (job ${s.job}); nothing more will happen.`;
    case "CANCELLED":
      return `cancelled (job ${s.job})${p?.message ? `: ${clip(p.message, 300)}` : ""}.`;
    case "PENDING":
      return `waits for a manager's approval as job ${s.job}; \`review_deletion\` decides it.`;
  }
  const so = p
    ? p.percentage
      ? ` (${p.percentage}% so far)`
      : p.total && p.done
        ? ` (${p.done} of ${p.total} so far)`
        : ""
    : "";
  const eta =
    s.secondsLeft !== undefined
      ? `; the service's progress suggests ${duration(s.secondsLeft)} more`
      : "; the service gives no estimate yet";
  return `still running as job ${s.job}${so}${eta}. Follow it with \`job_status\` (waitSeconds waits for it).`;
}
