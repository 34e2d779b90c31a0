import { z } from "zod";
import type { Limit } from "../../api/admin.js";
import { isServiceError } from "../../api/errors.js";
import type { ToolContext } from "../context.js";
import { defineTool, MANAGER_ROLES } from "../define.js";
import { refParam } from "../discovery/params.js";
import { resolveFile } from "../support/files.js";
import { READ_ONLY } from "../support/hints.js";
import { formatBytes, lines } from "../support/text.js";
import { percent } from "./params.js";

/** A limit at or over this share of its allowance is "near". */
export const NEAR_PERCENT = 80;

const input = z.object({
  file: refParam(
    "Asset or content object: where its file's copies are (find it with `search`). Leave out for quota and limits",
  ).optional(),
  bitstream: z.number().int().min(1).default(1).describe("File number within the asset's copy (default 1)"),
});

const limitOut = z.object({
  feature: z.string(),
  name: z.string(),
  unit: z.string(),
  limit: z.number().nullable(),
  used: z.number(),
  remaining: z.number().nullable(),
  percentUsed: z.number().nullable(),
  reached: z.boolean(),
  near: z.boolean(),
});

const output = z.object({
  edition: z.string().optional(),
  quota: z
    .object({
      quotaBytes: z.number().nullable(),
      usedBytes: z.number(),
      remainingBytes: z.number().nullable(),
      percentUsed: z.number().nullable(),
      exceeded: z.boolean(),
    })
    .optional(),
  limits: z.array(limitOut).optional(),
  /** Features counted by the service that no limit applies to. */
  usage: z.array(z.object({ feature: z.string(), used: z.number(), unit: z.string() })).optional(),
  /** "near" = any limit at or over NEAR_PERCENT % or reached. */
  nearAnyLimit: z.boolean().optional(),
  policy: z.object({ name: z.string(), minimumCopies: z.number(), adapters: z.array(z.string()) }).optional(),
  adapters: z
    .array(
      z.object({
        id: z.string(),
        name: z.string(),
        type: z.string(),
        enabled: z.boolean(),
        inPolicy: z.boolean(),
        holdsBytes: z.boolean(),
      }),
    )
    .optional(),
  /** Why adapters are not listed (they need the administrator role). */
  adaptersNote: z.string().optional(),
  file: z
    .object({
      contentObject: z.string(),
      generation: z.number(),
      bitstream: z.number(),
      filename: z.string(),
      size: z.number(),
      locations: z.array(
        z.object({
          name: z.string(),
          type: z.string().optional(),
          primary: z.boolean(),
          simulated: z.boolean(),
        }),
      ),
    })
    .optional(),
});

function amount(n: number | null, unit: string): string {
  if (n === null) return "unlimited";
  return unit === "bytes" ? `${n.toLocaleString("en")} bytes (${formatBytes(n)})` : n.toLocaleString("en");
}

function limitLine(l: Limit & { near: boolean }): string {
  if (l.limit === null) return `- ${l.name}: ${amount(l.used, l.unit)} used, no limit`;
  const flag = l.reached ? " — REACHED" : l.near ? " — near the limit" : "";
  return `- ${l.name}: ${amount(l.used, l.unit)} of ${amount(l.limit, l.unit)} (${percent(l.percentUsed)}), ${amount(l.remaining, l.unit)} left${flag}`;
}

async function whereIsFile(ref: string, bitstream: number, ctx: ToolContext) {
  const f = await resolveFile(ctx, { ref, representation: "Preservation", bitstream });
  const locations = await ctx.api.admin.storageLocations(
    f.contentObject,
    f.generation.index,
    f.bitstream,
    ctx.signal,
  );
  const file = {
    contentObject: f.contentObject,
    generation: f.generation.index,
    bitstream: f.bitstream,
    filename: f.facts.filename,
    size: f.facts.size,
    locations: locations.map((l) => ({
      name: l.name,
      ...(l.type ? { type: l.type } : {}),
      primary: l.primary,
      simulated: l.simulated,
    })),
  };
  const text = lines(
    `File “${file.filename}” (${file.size.toLocaleString("en")} bytes; content object ${file.contentObject}, generation ${file.generation}, file ${file.bitstream}) is kept in ${locations.length} ${locations.length === 1 ? "place" : "places"}:`,
    ...file.locations.map(
      (l) =>
        `- ${l.name}${l.type ? ` (${l.type})` : ""}${l.primary ? ", primary copy" : ""}${l.simulated ? ", configured only: this adapter does not hold the bytes here" : ", bytes present"}`,
    ),
  );
  return { structured: { file }, text };
}

export default defineTool({
  name: "storage_and_limits",
  title: "Storage, quota and limits",
  description:
    "Are we near any limit? Storage quota used and left, each edition limit against its usage (near = 80%+), other usage counts, the storage policy and adapters. With file: where that file's copies are kept.",
  toolset: "admin",
  requiredRoles: MANAGER_ROLES,
  inputSchema: input,
  outputSchema: output,
  annotations: READ_ONLY,
  async handler(args, ctx: ToolContext) {
    if (args.file) return whereIsFile(args.file, args.bitstream, ctx);
    const api = ctx.api.admin;
    const s = ctx.signal;
    const [quota, limits, usage, policy] = await Promise.all([
      api.quota(s),
      api.limits(s),
      api.featureUsage(s),
      api.storagePolicy(s),
    ]);
    let adapters: z.infer<typeof output>["adapters"];
    let adaptersNote: string | undefined;
    try {
      adapters = (await api.adapters(s)).map((a) => ({
        id: a.id,
        name: a.name,
        type: a.type,
        enabled: a.enabled,
        inPolicy: a.inPolicy,
        holdsBytes: a.holdsBytes,
      }));
    } catch (err) {
      if (!isServiceError(err) || err.status !== 403) throw err;
      adaptersNote = "Storage adapters are not listed: viewing them needs the administrator role.";
    }
    const limitRows = limits.limits.map((l) => ({
      ...l,
      near: l.reached || (l.percentUsed !== null && l.percentUsed >= NEAR_PERCENT),
    }));
    const limited = new Set(limitRows.map((l) => l.feature));
    const other = usage.features
      .filter((f) => !limited.has(f.feature))
      .map((f) => ({ feature: f.feature, used: f.used, unit: f.unit }));
    const near = limitRows.filter((l) => l.near);
    const structured = {
      edition: limits.edition,
      quota: {
        quotaBytes: quota.quotaBytes,
        usedBytes: quota.usedBytes,
        remainingBytes: quota.remainingBytes,
        percentUsed: quota.percentUsed,
        exceeded: quota.exceeded,
      },
      limits: limitRows,
      usage: other,
      nearAnyLimit: near.length > 0,
      policy: {
        name: policy.name,
        minimumCopies: policy.minimumCopies,
        adapters: policy.adapters.map((a) => a.name),
      },
      ...(adapters ? { adapters } : {}),
      ...(adaptersNote ? { adaptersNote } : {}),
    };
    const text = lines(
      near.length
        ? `Yes: ${near.map((l) => `${l.name} ${l.reached ? "reached" : `at ${percent(l.percentUsed)}`}`).join("; ")} (${limits.edition} edition).`
        : `No limit is at ${NEAR_PERCENT}% or more (${limits.edition} edition).`,
      quota.quotaBytes === null
        ? `Storage: ${amount(quota.usedBytes, "bytes")} used; no quota.`
        : `Storage quota: ${amount(quota.usedBytes, "bytes")} of ${amount(quota.quotaBytes, "bytes")} used (${percent(quota.percentUsed)}), ${amount(quota.remainingBytes, "bytes")} left${quota.exceeded ? " — EXCEEDED" : ""}.`,
      "Limits:",
      ...limitRows.map(limitLine),
      other.length > 0 &&
        `Other usage: ${other.map((f) => `${f.feature} ${amount(f.used, f.unit)}`).join(", ")}.`,
      `Storage policy “${policy.name}”: ${policy.minimumCopies} ${policy.minimumCopies === 1 ? "copy" : "copies"} on ${policy.adapters.map((a) => `${a.name}${a.primary ? " (primary)" : ""}`).join(", ")}.`,
      ...(adapters
        ? [
            `Adapters (${adapters.length}):`,
            ...adapters.map(
              (a) =>
                `- ${a.name} (${a.type}), ${a.enabled ? "enabled" : "disabled"}${a.inPolicy ? ", in the policy" : ", not in the policy"}${a.holdsBytes ? ", holds the bytes" : ""}; id ${a.id}`,
            ),
          ]
        : [adaptersNote]),
    );
    return { structured, text };
  },
});
