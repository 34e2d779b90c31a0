import { z } from "zod";
import {
  type CsvDryRun,
  CsvFileError,
  type CsvRowPlan,
  decodeCsv,
  MAX_CSV_BYTES,
  sha256,
} from "../../api/metadata-csv.js";
import { fingerprint } from "../../guards/fingerprint.js";
import { readLocalFile } from "../../local/open-file.js";
import { resolveLocalPath } from "../../local/roots.js";
import type { Session } from "../../session/session.js";
import type { ToolContext } from "../context.js";
import { type ConfirmPlan, CURATOR_ROLES, defineTool, UserInputError } from "../define.js";
import { DESTRUCTIVE } from "../support/hints.js";
import { jobFields, jobOutcome, jobState, settleJob } from "../support/job-wait.js";
import { clip, lines, plural } from "../support/text.js";

/** Rows an answer shows; the counts cover all of them. */
const SHOWN_ROWS = 30;
/** Rows a confirmation plan shows, and entities it binds (each with the digest of the whole plan). */
const PLAN_ROWS = 15;
const PLAN_TARGETS = 25;
/** How long the plan a confirmation just made is reused by the handler of the same call. */
const PLAN_REUSE_MS = 60_000;

const input = z.object({
  csv: z
    .string()
    .max(MAX_CSV_BYTES)
    .optional()
    .describe(
      'CSV text: header "PRESERVICA_ENTITY_REF" plus "<group schema URI>;/ns:<group>/ns:<field>" columns, one row per entity',
    ),
  path: z.string().max(4096).optional().describe("Or a CSV file inside the allowed local folders"),
  mode: z
    .enum(["dry_run", "apply"])
    .default("dry_run")
    .describe("dry_run (default) shows what would change; apply runs it as a job after the person confirms"),
});

const change = z.object({
  group: z.string(),
  field: z.string(),
  before: z.string().optional(),
  after: z.string(),
});
const row = z.object({
  line: z.number().int(),
  ref: z.string(),
  title: z.string().optional(),
  outcome: z.enum(["add", "update", "unchanged", "refused"]),
  reason: z.string().optional(),
  changes: z.array(change),
});
const counts = z.object({
  rows: z.number().int(),
  add: z.number().int(),
  update: z.number().int(),
  unchanged: z.number().int(),
  refused: z.number().int(),
});

const output = z.object({
  mode: z.enum(["dry_run", "apply"]),
  counts,
  rows: z.array(row),
  omittedRows: z.number().int().optional(),
  refusedLines: z.array(z.number().int()).optional(),
  ...z.object(jobFields).partial().shape,
  /** dry_run: the token that applies exactly this plan once the person agreed (pass it with mode "apply"). */
  confirmation: z.string().optional(),
  expiresAt: z.string().optional(),
});

async function csvText(args: z.infer<typeof input>, ctx: ToolContext): Promise<string> {
  if ((args.csv === undefined) === (args.path === undefined))
    throw new UserInputError(
      "Give either `csv` (the CSV text) or `path` (a CSV file in the allowed folders), not both or neither.",
    );
  if (args.csv !== undefined) {
    if (Buffer.byteLength(args.csv) > MAX_CSV_BYTES)
      throw new UserInputError(
        "The CSV is larger than 1 MiB, more than the service takes at once; split it into several files.",
      );
    return args.csv;
  }
  const local = await resolveLocalPath(ctx.config.ingestRoots, args.path as string);
  if (local.isDirectory) throw new UserInputError(`${args.path} is a folder; give the path of a CSV file.`);
  if (local.size > MAX_CSV_BYTES)
    throw new UserInputError(
      `${args.path} is ${local.size} bytes, more than the 1 MiB the service takes at once; split it into several files.`,
    );
  return decodeCsv(await readLocalFile(local));
}

/** The plan the confirmation made moments ago, for the handler of the same call (keyed by session). */
const recentPlans = new WeakMap<Session, { plan: CsvDryRun; at: number }>();

async function dryRun(csv: string, ctx: ToolContext): Promise<CsvDryRun> {
  try {
    const plan = await ctx.api.metadataCsv.dryRun(csv, { signal: ctx.signal });
    recentPlans.set(ctx.session, { plan, at: Date.now() });
    return plan;
  } catch (err) {
    if (err instanceof CsvFileError) throw new UserInputError(`${err.message} Nothing was changed.`);
    throw err;
  }
}

function quoted(v: string): string {
  return `"${clip(v, 80)}"`;
}

/** `Line 3: asset "Ledger" 7f3e… — update accession: boxes "2" → "3"`. */
function rowLine(r: CsvRowPlan): string {
  const who =
    r.title !== undefined
      ? `${r.entityType === "SO" ? "folder" : "asset"} ${quoted(r.title)} ${r.ref}`
      : r.ref || "(no ref)";
  if (r.outcome === "refused") return `Line ${r.line}: ${who} — refused: ${r.reason}`;
  if (r.outcome === "unchanged") return `Line ${r.line}: ${who} — unchanged (no new values)`;
  const byGroup = new Map<string, string[]>();
  for (const c of r.changes) {
    const list = byGroup.get(c.group) ?? [];
    list.push(
      c.before !== undefined
        ? `${c.field} ${quoted(c.before)} → ${quoted(c.after)}`
        : `${c.field} ${quoted(c.after)}`,
    );
    byGroup.set(c.group, list);
  }
  const what = [...byGroup].map(([g, l]) => `${g}: ${l.join(", ")}`).join("; ");
  return `Line ${r.line}: ${who} — ${r.outcome === "add" ? "add" : "update"} ${what}`;
}

function countsLine(p: CsvDryRun): string {
  const c = p.counts;
  return `${plural(c.rows, "row")}: ${c.add + c.update} would change (${c.add} add a document, ${c.update} update one), ${c.unchanged} unchanged, ${c.refused} refused`;
}

function rowView(r: CsvRowPlan) {
  return {
    line: r.line,
    ref: r.ref,
    ...(r.title !== undefined ? { title: r.title } : {}),
    outcome: r.outcome,
    ...(r.reason ? { reason: r.reason } : {}),
    changes: r.changes.map((c) => ({
      group: c.group,
      field: c.field,
      ...(c.before !== undefined ? { before: c.before } : {}),
      after: c.after,
    })),
  };
}

function refusedLines(p: CsvDryRun): number[] {
  return p.rows
    .filter((r) => r.outcome === "refused")
    .map((r) => r.line)
    .slice(0, 100);
}

/**
 * What applying the CSV would do, as the person confirms it. With a file, the file is the first target (its
 * fingerprint the CSV's digest): a file edited after the preview is refused naming the file, not an entity
 * whose digest changed with it.
 */
function applyPlan(plan: CsvDryRun, args: z.infer<typeof input>): ConfirmPlan {
  const shown = plan.rows.filter((r) => r.outcome !== "unchanged").slice(0, PLAN_ROWS);
  const left = plan.rows.filter((r) => r.outcome !== "unchanged").length - shown.length;
  const file = args.path
    ? [{ ref: `file:${args.path}`, title: `the CSV file ${args.path}`, fingerprint: plan.csvDigest }]
    : [];
  return {
    summary: `Apply a metadata CSV edit to ${plural(plan.targets.length, "entity", "entities")}: ${countsLine(plan)}`,
    details: [
      ...shown.map(rowLine),
      ...(left > 0 ? [`… and ${left} more rows (mode dry_run lists them)`] : []),
      "Refused rows change nothing; the others are applied row by row as a job.",
    ],
    targets: [
      ...file,
      ...plan.targets.slice(0, PLAN_TARGETS).map((t) => ({
        ref: t.ref,
        title: t.title,
        fingerprint: fingerprint(plan.digest, t.ref),
      })),
    ],
    preview: { ...plan.counts, csvDigest: plan.csvDigest },
  };
}

export default defineTool({
  name: "csv_metadata_edit",
  title: "Edit metadata from a CSV",
  description:
    "Add or update metadata group fields on many entities from a CSV (text, or a file in the allowed folders). mode dry_run shows row by row what would change (field diffs, refusals with reasons), changes nothing, and is the preview: its confirmation token applies exactly that plan (mode apply) once the person agreed; the job's outcome is answered.",
  toolset: "bulk",
  requiredRoles: CURATOR_ROLES,
  inputSchema: input,
  outputSchema: output,
  annotations: DESTRUCTIVE,
  async confirm(args, ctx: ToolContext): Promise<ConfirmPlan | undefined> {
    if (args.mode !== "apply") return undefined;
    const plan = await dryRun(await csvText(args, ctx), ctx);
    const changing = plan.rows.filter((r) => r.outcome === "add" || r.outcome === "update");
    if (changing.length === 0)
      throw new UserInputError(
        `Applying this CSV would change nothing (${countsLine(plan)}); run mode dry_run for the reasons. Nothing was changed.`,
      );
    return applyPlan(plan, args);
  },
  async handler(args, ctx: ToolContext) {
    const csv = await csvText(args, ctx);
    if (args.mode === "dry_run") {
      const plan = await dryRun(csv, ctx);
      const shown = plan.rows.slice(0, SHOWN_ROWS);
      const omitted = plan.rows.length - shown.length;
      const refused = refusedLines(plan);
      // The dry run is the preview: its token lets the apply go ahead without sending the plan again.
      const changes = plan.counts.add + plan.counts.update > 0;
      const confirmation = changes
        ? ctx.confirmationFor({ ...args, mode: "apply" }, applyPlan(plan, args))
        : undefined;
      const text = lines(
        `Dry run of a metadata CSV edit (nothing was changed). ${countsLine(plan)}.`,
        ...shown.map(rowLine),
        omitted > 0 &&
          `… and ${omitted} more rows not shown${refused.some((l) => l > (shown.at(-1)?.line ?? 0)) ? `; refused lines: ${refused.join(", ")}` : ""}`,
        confirmation
          ? `This dry run is the preview. Show it to the person; if they agree, call again with the same ${args.path ? "path" : "csv"}, mode "apply" and confirmation: "${confirmation.token}" (valid until ${confirmation.expiresAt}, once). Update Metadata permission is checked by the service row by row.`
          : "Applying it would change nothing.",
      );
      return {
        structured: {
          mode: "dry_run" as const,
          counts: plan.counts,
          rows: shown.map(rowView),
          ...(omitted > 0 ? { omittedRows: omitted } : {}),
          ...(refused.length ? { refusedLines: refused } : {}),
          ...(confirmation ? { confirmation: confirmation.token, expiresAt: confirmation.expiresAt } : {}),
        },
        text,
      };
    }
    // Apply: the guard confirmed the plan a moment ago; reuse it for the answer, else plan again.
    const recent = recentPlans.get(ctx.session);
    const digest = sha256(csv);
    const plan =
      recent && recent.plan.csvDigest === digest && Date.now() - recent.at < PLAN_REUSE_MS
        ? recent.plan
        : await dryRun(csv, ctx);
    recentPlans.delete(ctx.session);
    const job = await ctx.api.metadataCsv.submit(csv, ctx.signal);
    const targets = plan.targets.slice(0, PLAN_TARGETS).map((t) => ({ ref: t.ref, title: t.title }));
    const refused = refusedLines(plan);
    const settled = await settleJob(ctx, job);
    return {
      structured: {
        mode: "apply" as const,
        counts: plan.counts,
        rows: plan.rows
          .filter((r) => r.outcome !== "unchanged")
          .slice(0, PLAN_ROWS)
          .map(rowView),
        ...(refused.length ? { refusedLines: refused } : {}),
        ...jobState(settled),
      },
      text: lines(
        `Metadata CSV edit: ${jobOutcome(settled)}`,
        `As planned: ${countsLine(plan)}.`,
        ...targets.slice(0, 10).map((t) => `- ${quoted(t.title)} ${t.ref}`),
        plan.targets.length > 10 && `… and ${plan.targets.length - 10} more entities`,
      ),
      audit: { targets, job, jobFinished: settled.finished },
    };
  },
});
