import { z } from "zod";
import type { AdminUser } from "../../api/admin.js";
import type { ToolContext } from "../context.js";
import { ADMIN_ROLES, type ConfirmPlan, defineTool, UserInputError } from "../define.js";
import { lines } from "../support/text.js";
import { digest, roleName, userNameParam } from "./params.js";

const input = z.object({
  user: userNameParam,
  action: z
    .enum(["disable", "enable"])
    .describe("disable (ends their sessions at once; asks for confirmation) or enable"),
});

const output = z.object({
  user: z.object({
    userName: z.string(),
    fullName: z.string(),
    email: z.string(),
    enabled: z.boolean(),
    roles: z.array(z.string()),
  }),
  previouslyEnabled: z.boolean(),
  enabled: z.boolean(),
});

function who(u: AdminUser): string {
  return `${u.userName} (${u.fullName || "no name"})`;
}

async function examine(args: z.infer<typeof input>, ctx: ToolContext): Promise<AdminUser> {
  const u = await ctx.api.admin.getUser(args.user, ctx.signal);
  const want = args.action === "enable";
  if (u.enabled === want)
    throw new UserInputError(
      `User ${who(u)} is already ${want ? "enabled" : "disabled"}; nothing to change.`,
    );
  return u;
}

export default defineTool({
  name: "manage_user",
  title: "Disable or enable a user",
  description:
    "Disable a user account (their sessions end at once; asks for confirmation first) or enable it again. Find user names with `users_and_access`.",
  toolset: "admin",
  requiredRoles: ADMIN_ROLES,
  inputSchema: input,
  outputSchema: output,
  // Disabling ends sessions (not undone by enabling again); doing it twice changes nothing more.
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  async confirm(args, ctx: ToolContext): Promise<ConfirmPlan | undefined> {
    if (args.action !== "disable") return undefined;
    const u = await examine(args, ctx);
    return {
      summary: `Disable user ${who(u)}: they can no longer sign in and their sessions end now`,
      details: [
        `E-mail ${u.email || "none"}; roles ${u.roles.map(roleName).join(", ") || "none"}.`,
        "Enabled → disabled. Enable again with manage_user action enable (their sessions stay ended).",
      ],
      targets: [
        {
          ref: `user:${u.userName}`,
          title: u.fullName || u.userName,
          fingerprint: digest(u.userName, u.enabled, u.email, [...u.roles].sort()),
        },
      ],
      preview: { user: u.userName, from: "enabled", to: "disabled" },
    };
  },
  async handler(args, ctx: ToolContext) {
    const before = await examine(args, ctx);
    const after = await ctx.api.admin.setUserEnabled(before.userName, args.action === "enable", ctx.signal);
    const structured = {
      user: {
        userName: after.userName,
        fullName: after.fullName,
        email: after.email,
        enabled: after.enabled,
        roles: after.roles.map(roleName),
      },
      previouslyEnabled: before.enabled,
      enabled: after.enabled,
    };
    return {
      structured,
      text: lines(
        `${args.action === "disable" ? "Disabled" : "Enabled"} user ${who(after)}: ${before.enabled ? "enabled" : "disabled"} → ${after.enabled ? "enabled" : "disabled"}.`,
        args.action === "disable"
          ? "Their sessions were ended; the service recorded a USER DISABLE config event (see `configuration_history`)."
          : "They can sign in again; the service recorded a USER ENABLE config event.",
      ),
      audit: { targets: [{ ref: `user:${after.userName}`, title: after.fullName || after.userName }] },
    };
  },
});
