import { z } from "zod";
import type { AdapterChanges, StorageAdapter, StoragePolicy } from "../../api/admin.js";
import { fingerprint } from "../../guards/fingerprint.js";
import type { ToolContext } from "../context.js";
import { ADMIN_ROLES, type ConfirmPlan, defineTool, UserInputError } from "../define.js";
import { DESTRUCTIVE } from "../support/hints.js";
import { lines, plural } from "../support/text.js";
import { listed } from "./params.js";

const ADAPTER_TYPES = ["FILE_SYSTEM", "S3", "AZURE", "GLACIER"] as const;

const input = z.object({
  action: z
    .enum(["add_adapter", "update_adapter", "remove_adapter", "set_policy"])
    .describe("What to change; every action asks for confirmation first"),
  adapter: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .optional()
    .describe("update/remove: adapter id or exact name (`storage_and_limits` lists them)"),
  name: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .optional()
    .describe("Adapter name (add, or a rename), or the policy's name"),
  type: z.enum(ADAPTER_TYPES).optional().describe("Adapter type (add, or a change)"),
  description: z
    .string()
    .trim()
    .max(1000)
    .optional()
    .describe('Adapter or policy description ("" clears it)'),
  settings: z
    .record(z.string(), z.union([z.string().max(500), z.number(), z.boolean()]))
    .optional()
    .describe("Adapter settings such as bucket, region; never credentials"),
  enabled: z.boolean().optional().describe("Enable or disable an adapter"),
  adapters: z
    .array(z.string().trim().min(1).max(100))
    .min(1)
    .max(10)
    .optional()
    .describe("set_policy: adapter ids or names, the primary copy's first"),
  minimumCopies: z.number().int().min(1).max(10).optional().describe("set_policy (default: all adapters)"),
});
type Args = z.infer<typeof input>;

const adapterOut = z.object({
  id: z.string(),
  name: z.string(),
  type: z.string(),
  enabled: z.boolean(),
  inPolicy: z.boolean(),
  description: z.string().nullable().optional(),
  settings: z.record(z.string(), z.unknown()),
});
const policyOut = z.object({
  name: z.string(),
  minimumCopies: z.number(),
  adapters: z.array(z.object({ id: z.string(), name: z.string(), primary: z.boolean() })),
});

const output = z.object({
  action: z.string(),
  /** The adapter before the change (absent for add). */
  before: adapterOut.optional(),
  /** The adapter as the service has it now (absent for remove). */
  after: adapterOut.optional(),
  policyBefore: policyOut.optional(),
  policyAfter: policyOut.optional(),
  /** Files (bitstreams) whose storage locations the change touches, as the service counts them. */
  filesAffected: z.number().optional(),
  changes: z.array(z.string()),
});

function adapterOf(a: StorageAdapter): z.infer<typeof adapterOut> {
  return {
    id: a.id,
    name: a.name,
    type: a.type,
    enabled: a.enabled,
    inPolicy: a.inPolicy,
    description: a.description ?? null,
    settings: a.settings,
  };
}

function policyOf(p: StoragePolicy): z.infer<typeof policyOut> {
  return {
    name: p.name,
    minimumCopies: p.minimumCopies,
    adapters: p.adapters.map((a) => ({ id: a.id, name: a.name, primary: a.primary })),
  };
}

function policyLine(p: { name: string; minimumCopies: number; adapters: { name: string }[] }): string {
  return `“${p.name}”: ${p.adapters.map((a, i) => `${a.name}${i === 0 ? " (primary)" : ""}`).join(", ")}; at least ${plural(p.minimumCopies, "copy", "copies")}`;
}

function find(adapters: StorageAdapter[], wanted: string): StorageAdapter {
  const a =
    adapters.find((x) => x.id.toLowerCase() === wanted.toLowerCase()) ??
    adapters.find((x) => x.name.toLowerCase() === wanted.toLowerCase());
  if (!a)
    throw new UserInputError(
      `No storage adapter "${wanted}". Adapters: ${listed(adapters.map((x) => `“${x.name}” ${x.id}`))}.`,
    );
  return a;
}

const show = (v: unknown) => (v === null || v === undefined || v === "" ? "none" : JSON.stringify(v));

/** The fields an update sends, and "field: before → after" for each that really changes. */
function adapterDiff(a: StorageAdapter | undefined, args: Args): { changes: AdapterChanges; diff: string[] } {
  const changes: AdapterChanges = {};
  const diff: string[] = [];
  const put = <K extends keyof AdapterChanges>(
    key: K,
    value: AdapterChanges[K] | undefined,
    before: unknown,
  ) => {
    if (value === undefined) return;
    if (a && JSON.stringify(before ?? null) === JSON.stringify(value)) return;
    changes[key] = value;
    diff.push(`${key}: ${a ? `${show(before)} → ` : ""}${show(value)}`);
  };
  put("name", args.name, a?.name);
  put("type", args.type, a?.type);
  put("description", args.description === "" ? null : args.description, a?.description);
  // Settings as the service stores them: text values.
  const settings = args.settings
    ? Object.fromEntries(Object.entries(args.settings).map(([k, v]) => [k, String(v)]))
    : undefined;
  put("settings", settings, a?.settings);
  put("enabled", args.enabled, a?.enabled);
  return { changes, diff };
}

interface Plan {
  summary: string;
  details: string[];
  target: { ref: string; title: string };
  fingerprint: string;
  /** What the handler does with what was checked. */
  run: (ctx: ToolContext) => Promise<z.infer<typeof output>>;
}

async function plan(args: Args, ctx: ToolContext): Promise<Plan> {
  const api = ctx.api.admin;
  const s = ctx.signal;
  const [adapters, policy, quota] = await Promise.all([api.adapters(s), api.storagePolicy(s), api.quota(s)]);
  const files = quota.bitstreams?.count ?? 0;
  const everyFile = `${plural(files, "file")} (${(quota.bitstreams?.bytes ?? 0).toLocaleString("en")} bytes)`;
  const state = fingerprint(adapters, policyOf(policy));
  const allowed = (extra: (keyof Args)[]) => {
    const stray = (
      ["adapter", "name", "type", "description", "settings", "enabled", "adapters", "minimumCopies"] as const
    ).filter((k) => args[k] !== undefined && !extra.includes(k));
    if (stray.length > 0)
      throw new UserInputError(`${args.action} does not take ${stray.join(", ")}; leave them out.`);
  };

  if (args.action === "set_policy") {
    allowed(["name", "description", "adapters", "minimumCopies"]);
    if (!args.name || !args.adapters)
      throw new UserInputError(
        "set_policy needs name and adapters (ids or names, the primary copy's first).",
      );
    const chosen = args.adapters.map((w) => find(adapters, w));
    const off = chosen.filter((a) => !a.enabled);
    if (off.length > 0)
      throw new UserInputError(
        `${off.map((a) => `“${a.name}”`).join(", ")} ${off.length > 1 ? "are" : "is"} disabled; enable it first with action update_adapter and enabled true.`,
      );
    if (!chosen.some((a) => a.holdsBytes))
      throw new UserInputError(
        `The policy must include “${adapters.find((a) => a.holdsBytes)?.name}”, the only adapter that holds the bytes.`,
      );
    const min = args.minimumCopies ?? chosen.length;
    if (min > chosen.length)
      throw new UserInputError(`minimumCopies is at most ${chosen.length}, the adapters named.`);
    const next = { name: args.name, minimumCopies: min, adapters: chosen.map((a) => ({ name: a.name })) };
    const dropped = policy.adapters.filter((p) => !chosen.some((c) => c.id === p.id));
    const added = chosen.filter((c) => !policy.adapters.some((p) => p.id === c.id));
    return {
      summary: `Apply storage policy ${policyLine(next)} to every one of ${everyFile}`,
      details: [
        `Before: ${policyLine(policy)}.`,
        `After: ${policyLine(next)}.`,
        added.length > 0 && `Copies added on: ${added.map((a) => `“${a.name}”`).join(", ")}.`,
        dropped.length > 0 && `Copies no longer kept on: ${dropped.map((a) => `“${a.name}”`).join(", ")}.`,
        `The storage locations of all ${plural(files, "file")} follow it at once.`,
      ].filter((l): l is string => typeof l === "string"),
      target: { ref: "storage-policy", title: policy.name },
      fingerprint: state,
      async run(c) {
        const after = await c.api.admin.setStoragePolicy(
          {
            name: args.name as string,
            ...(args.description === undefined ? {} : { description: args.description || null }),
            adapters: chosen.map((a) => a.id),
            ...(args.minimumCopies === undefined ? {} : { minimumCopies: args.minimumCopies }),
          },
          c.signal,
        );
        return {
          action: args.action,
          policyBefore: policyOf(policy),
          policyAfter: policyOf(after),
          filesAffected: files,
          changes: [`${policyLine(policy)} → ${policyLine(after)}`],
        };
      },
    };
  }

  if (args.action === "add_adapter") {
    allowed(["name", "type", "description", "settings", "enabled"]);
    if (!args.name || !args.type) throw new UserInputError("add_adapter needs name and type.");
    const taken = adapters.find((a) => a.name.toLowerCase() === args.name?.toLowerCase());
    if (taken)
      throw new UserInputError(`An adapter named “${taken.name}” exists (${taken.id}); choose another name.`);
    const { changes, diff } = adapterDiff(undefined, args);
    return {
      summary: `Add storage adapter “${args.name}” (${args.type}), ${args.enabled === false ? "disabled" : "enabled"}, not in the storage policy`,
      details: [
        ...diff,
        `No file's copies change until a storage policy names it (action set_policy). It holds no bytes on this service: a configuration record.`,
      ],
      target: { ref: `storage-adapter:${args.name}`, title: args.name },
      fingerprint: state,
      async run(c) {
        const after = await c.api.admin.addAdapter(
          { ...changes, name: args.name as string, type: args.type as string },
          c.signal,
        );
        return { action: args.action, after: adapterOf(after), filesAffected: 0, changes: diff };
      },
    };
  }

  if (!args.adapter) throw new UserInputError(`${args.action} needs adapter: its id or exact name.`);
  const a = find(adapters, args.adapter);
  const target = { ref: `storage-adapter:${a.id}`, title: a.name };
  const inPolicy = policy.adapters.some((p) => p.id === a.id);

  if (args.action === "remove_adapter") {
    allowed(["adapter"]);
    if (a.builtIn)
      throw new UserInputError(
        `“${a.name}” is the built-in content store holding every file's bytes; it cannot be removed.`,
      );
    if (inPolicy)
      throw new UserInputError(
        `“${a.name}” is in the storage policy “${policy.name}”; apply a policy without it first (action set_policy).`,
      );
    return {
      summary: `Remove storage adapter “${a.name}” (${a.type}, ${a.id})`,
      details: [
        `Settings ${show(a.settings)}; ${a.enabled ? "enabled" : "disabled"}.`,
        "It is not in the storage policy, so no file's copies are on it; no file is affected.",
      ],
      target,
      fingerprint: state,
      async run(c) {
        await c.api.admin.removeAdapter(a.id, c.signal);
        return {
          action: args.action,
          before: adapterOf(a),
          filesAffected: 0,
          changes: [`removed “${a.name}”`],
        };
      },
    };
  }

  allowed(["adapter", "name", "type", "description", "settings", "enabled"]);
  const { changes, diff } = adapterDiff(a, args);
  if (diff.length === 0)
    throw new UserInputError(
      `Nothing to change on “${a.name}”: give name, type, description, settings or enabled with new values.`,
    );
  if (a.builtIn && (changes.type ?? changes.settings ?? changes.enabled) !== undefined)
    throw new UserInputError(
      `“${a.name}” is the built-in content store: only its name and description can change.`,
    );
  if (changes.enabled === false && inPolicy)
    throw new UserInputError(
      `“${a.name}” is in the storage policy “${policy.name}”; apply a policy without it (action set_policy) before disabling it.`,
    );
  const affected = inPolicy ? files : 0;
  return {
    summary: `Change storage adapter “${a.name}” (${a.type}): ${diff.join("; ")}`,
    details: [
      inPolicy
        ? `It is in the storage policy “${policy.name}”: it keeps a copy of every one of ${everyFile}, whose storage locations name it.`
        : "It is not in the storage policy, so no file's copies are on it; no file is affected.",
    ],
    target,
    fingerprint: state,
    async run(c) {
      const after = await c.api.admin.updateAdapter(a.id, changes, c.signal);
      return {
        action: args.action,
        before: adapterOf(a),
        after: adapterOf(after),
        filesAffected: affected,
        changes: diff,
      };
    },
  };
}

export default defineTool({
  name: "change_storage",
  title: "Change storage adapters or the storage policy",
  description:
    "Add, update (rename, settings, enable/disable) or remove a storage adapter, or apply a new storage policy (which adapters keep each file's copies). Each asks for confirmation with the before → after and the files affected. See adapters and the policy with `storage_and_limits`.",
  toolset: "admin",
  requiredRoles: ADMIN_ROLES,
  inputSchema: input,
  outputSchema: output,
  annotations: DESTRUCTIVE,
  async confirm(args, ctx: ToolContext): Promise<ConfirmPlan> {
    const p = await plan(args, ctx);
    return {
      summary: p.summary,
      details: p.details,
      targets: [{ ...p.target, fingerprint: p.fingerprint }],
      preview: { action: args.action, target: p.target.ref },
    };
  },
  async handler(args, ctx: ToolContext) {
    const p = await plan(args, ctx);
    const structured = await p.run(ctx);
    const title = structured.after?.name ?? structured.policyAfter?.name ?? p.target.title;
    const verb = {
      add_adapter: `Added storage adapter “${title}” ${structured.after?.id ?? ""}`,
      update_adapter: `Changed storage adapter “${title}”`,
      remove_adapter: `Removed storage adapter “${p.target.title}”`,
      set_policy: `Applied storage policy “${title}”`,
    }[args.action];
    return {
      structured,
      text: lines(
        `${verb.trim()}: ${structured.changes.join("; ")}.`,
        structured.filesAffected
          ? `The storage locations of ${plural(structured.filesAffected, "file")} follow it.`
          : "No file's copies are affected.",
        "The service recorded a config event (see `configuration_history`).",
      ),
      audit: {
        targets: [
          structured.after
            ? { ref: `storage-adapter:${structured.after.id}`, title: structured.after.name }
            : p.target,
        ],
      },
    };
  },
});
