import { z } from "zod";
import type { AdminUser } from "../../api/admin.js";
import { isNotFound } from "../../api/errors.js";
import { fingerprint } from "../../guards/fingerprint.js";
import type { ToolContext } from "../context.js";
import { ADMIN_ROLES, type ConfirmPlan, defineTool, UserInputError } from "../define.js";
import { OVERWRITE } from "../support/hints.js";
import { lines } from "../support/text.js";
import { absentTarget } from "../support/writes.js";
import { listed, roleName, userNameParam, userOf, userOut } from "./params.js";

const input = z.object({
  user: userNameParam,
  action: z
    .enum(["disable", "enable", "add", "set_roles"])
    .describe(
      "disable (ends their sessions), enable, add (a new account), or set_roles (replaces their roles)",
    ),
  fullName: z.string().trim().min(1).max(200).optional().describe("add: the person's name"),
  email: z.string().trim().min(3).max(254).optional().describe("add: where their set-password code goes"),
  roles: z
    .array(
      z
        .string()
        .trim()
        .regex(/^(ROLE_)?[A-Za-z][A-Za-z0-9_]{0,63}$/, "a role name such as SDB_ACCESS_USER"),
    )
    .min(1)
    .max(20)
    .optional()
    .describe("add, set_roles: e.g. SDB_ACCESS_USER (add's default); `users_and_access` lists roles"),
});
type Args = z.infer<typeof input>;

const output = z.object({
  action: z.string(),
  user: userOut,
  /** disable/enable: the state before. */
  previouslyEnabled: z.boolean().optional(),
  enabled: z.boolean(),
  /** set_roles: the roles before. */
  previousRoles: z.array(z.string()).optional(),
  /** add: the service e-mailed a single-use set-password code (never shown here). */
  codeMailedTo: z.string().optional(),
});

function who(u: Pick<AdminUser, "userName" | "fullName">): string {
  return `${u.userName} (${u.fullName || "no name"})`;
}

/** A user as the audit log and confirmations name them. */
function userRef(u: AdminUser): { ref: string; title: string } {
  return { ref: `user:${u.userName}`, title: u.fullName || u.userName };
}

/** A user as a confirmation's target: bound to their name, state, e-mail and roles. */
function userTarget(u: AdminUser): ConfirmPlan["targets"][number] {
  return { ...userRef(u), fingerprint: fingerprint(u.userName, u.enabled, u.email, [...u.roles].sort()) };
}

/** The user as the service has it, or a clear error naming the tool that lists users. */
async function existing(ctx: ToolContext, name: string): Promise<AdminUser> {
  try {
    return await ctx.api.admin.getUser(name, ctx.signal);
  } catch (err) {
    if (isNotFound(err))
      throw new UserInputError(
        `No user ${name}; list user names with \`users_and_access\`, or add one with action add.`,
      );
    throw err;
  }
}

/** The roles asked for, in the Admin API's form, checked against the service's roles first. */
async function wantedRoles(ctx: ToolContext, args: Args): Promise<string[]> {
  const asked = [...new Set((args.roles ?? ["SDB_ACCESS_USER"]).map(roleName))];
  const known = (await ctx.api.admin.roles(ctx.signal)).map(roleName);
  const unknown = asked.filter((r) => !known.includes(r));
  if (unknown.length > 0)
    throw new UserInputError(`No role ${unknown.join(", ")}; the roles are ${listed(known)}.`);
  return asked;
}

type Examined =
  | { kind: "toggle"; before: AdminUser }
  | { kind: "add"; fullName: string; email: string; roles: string[] }
  | { kind: "roles"; before: AdminUser; roles: string[] };

async function examine(args: Args, ctx: ToolContext): Promise<Examined> {
  if (args.action === "add") {
    if (!args.fullName || !args.email)
      throw new UserInputError(
        "Adding a user needs fullName and email (their set-password code is mailed there).",
      );
    const found = await ctx.api.admin.getUser(args.user, ctx.signal).catch((err: unknown) => {
      if (isNotFound(err)) return undefined;
      throw err;
    });
    if (found)
      throw new UserInputError(
        `User ${who(found)} exists already${found.enabled ? "" : " (disabled: use action enable)"}; change their roles with action set_roles.`,
      );
    return { kind: "add", fullName: args.fullName, email: args.email, roles: await wantedRoles(ctx, args) };
  }
  if (args.action === "set_roles") {
    if (!args.roles)
      throw new UserInputError("set_roles needs roles: the complete list the user should hold.");
    const before = await existing(ctx, args.user);
    const roles = await wantedRoles(ctx, args);
    const had = before.roles.map(roleName);
    if (had.length === roles.length && roles.every((r) => had.includes(r)))
      throw new UserInputError(
        `User ${who(before)} already has exactly ${roles.join(", ")}; nothing to change.`,
      );
    return { kind: "roles", before, roles };
  }
  if (args.fullName || args.email || args.roles)
    throw new UserInputError(`${args.action} takes only user; leave out fullName, email and roles.`);
  const before = await existing(ctx, args.user);
  const want = args.action === "enable";
  if (before.enabled === want)
    throw new UserInputError(
      `User ${who(before)} is already ${want ? "enabled" : "disabled"}; nothing to change.`,
    );
  return { kind: "toggle", before };
}

/** "SDB_A, SDB_B → SDB_A, SDB_C (adds SDB_C; removes SDB_B)". */
function roleChange(before: string[], after: string[]): string {
  const b = before.map(roleName);
  const added = after.filter((r) => !b.includes(r));
  const removed = b.filter((r) => !after.includes(r));
  const what = [
    added.length > 0 && `adds ${added.join(", ")}`,
    removed.length > 0 && `removes ${removed.join(", ")}`,
  ]
    .filter(Boolean)
    .join("; ");
  return `${b.join(", ") || "none"} → ${after.join(", ")} (${what})`;
}

export default defineTool({
  name: "manage_user",
  title: "Add a user, change their roles, disable or enable them",
  description:
    "Add a user account (the service e-mails them a code to set their password), replace a user's roles, disable a user (their sessions end at once) or enable them again. All but enable ask for confirmation first. Find user names and roles with `users_and_access`.",
  toolset: "admin",
  requiredRoles: ADMIN_ROLES,
  inputSchema: input,
  outputSchema: output,
  // Disabling ends sessions (not undone by enabling again); repeating any action changes nothing more.
  annotations: OVERWRITE,
  async confirm(args, ctx: ToolContext): Promise<ConfirmPlan | undefined> {
    if (args.action === "enable") return undefined;
    const e = await examine(args, ctx);
    if (e.kind === "add")
      return {
        summary: `Add user ${args.user} (${e.fullName}) with roles ${e.roles.join(", ")}`,
        details: [
          `E-mail ${e.email}: the service mails a single-use code there (valid 7 days) to set a password; no password is chosen or shown here.`,
        ],
        // The fingerprint says "absent": someone adding the same name in between makes the token stale.
        targets: [absentTarget("user", args.user, e.fullName)],
        preview: { user: args.user, roles: e.roles },
      };
    if (e.kind === "roles")
      return {
        summary: `Change the roles of user ${who(e.before)}: ${roleChange(e.before.roles, e.roles)}`,
        details: [
          `E-mail ${e.before.email || "none"}; ${e.before.enabled ? "enabled" : "disabled"}.`,
          "Their access to every security tag follows their roles (see `users_and_access`).",
        ],
        targets: [userTarget(e.before)],
        preview: { user: e.before.userName, from: e.before.roles.map(roleName), to: e.roles },
      };
    const u = e.before;
    return {
      summary: `Disable user ${who(u)}: they can no longer sign in and their sessions end now`,
      details: [
        `E-mail ${u.email || "none"}; roles ${u.roles.map(roleName).join(", ") || "none"}.`,
        "Enabled → disabled. Enable again with manage_user action enable (their sessions stay ended).",
      ],
      targets: [userTarget(u)],
      preview: { user: u.userName, from: "enabled", to: "disabled" },
    };
  },
  async handler(args, ctx: ToolContext) {
    const e = await examine(args, ctx);
    const api = ctx.api.admin;
    if (e.kind === "add") {
      const after = await api.addUser(
        { userName: args.user, fullName: e.fullName, email: e.email, roles: e.roles },
        ctx.signal,
      );
      return {
        structured: {
          action: args.action,
          user: userOf(after),
          enabled: after.enabled,
          codeMailedTo: after.email,
        },
        text: lines(
          `Added user ${who(after)} with roles ${after.roles.map(roleName).join(", ")}; ${after.enabled ? "enabled" : "disabled"}.`,
          `The service e-mailed a single-use code to ${after.email} for setting their password (valid 7 days; it is not shown here). The service recorded a USER CREATE config event.`,
        ),
        audit: { targets: [userRef(after)] },
      };
    }
    if (e.kind === "roles") {
      const after = await api.updateUser(e.before.userName, { roles: e.roles }, ctx.signal);
      return {
        structured: {
          action: args.action,
          user: userOf(after),
          enabled: after.enabled,
          previousRoles: e.before.roles.map(roleName),
        },
        text: lines(
          `Changed the roles of user ${who(after)}: ${roleChange(e.before.roles, after.roles.map(roleName))}.`,
          "The service recorded a USER UPDATE config event with the roles before and after (see `configuration_history`).",
        ),
        audit: { targets: [userRef(after)] },
      };
    }
    const before = e.before;
    const after = await api.setUserEnabled(before.userName, args.action === "enable", ctx.signal);
    return {
      structured: {
        action: args.action,
        user: userOf(after),
        previouslyEnabled: before.enabled,
        enabled: after.enabled,
      },
      text: lines(
        `${args.action === "disable" ? "Disabled" : "Enabled"} user ${who(after)}: ${before.enabled ? "enabled" : "disabled"} → ${after.enabled ? "enabled" : "disabled"}.`,
        args.action === "disable"
          ? "Their sessions were ended; the service recorded a USER DISABLE config event (see `configuration_history`)."
          : "They can sign in again; the service recorded a USER ENABLE config event.",
      ),
      audit: { targets: [userRef(after)] },
    };
  },
});
