import { z } from "zod";
import type { AdminUser, TagPermissions, TemporaryUser } from "../../api/admin.js";
import type { ToolContext } from "../context.js";
import { defineTool, MANAGER_ROLES } from "../define.js";
import { mapLimit } from "../support/entities.js";
import { READ_ONLY } from "../support/hints.js";
import { lines, plural } from "../support/text.js";
import { listed, MAX_LINES, MAX_USERS, roleName, userNameParam, userOf, userOut } from "./params.js";

const input = z.object({
  user: userNameParam.optional().describe("One user to show in full; leave out for the overview"),
});

const tempOut = z.object({
  userName: z.string(),
  fullName: z.string(),
  roles: z.array(z.string()),
  enabled: z.boolean(),
  expires: z.string().nullable(),
  expired: z.boolean(),
});

const output = z.object({
  /** Permanent accounts read in detail (at most MAX_USERS). */
  users: z.array(userOut),
  usersTotal: z.number(),
  /** User names not read in detail (beyond the bound). */
  usersNotShown: z.array(z.string()),
  temporaryUsers: z.array(tempOut),
  /** Each role with the users (of those read) who hold it. */
  roles: z.array(z.object({ role: z.string(), holders: z.array(z.string()) })),
  /** Each security tag with what the signed-in caller's roles may do on it. */
  tags: z.array(z.object({ tag: z.string(), permissions: z.array(z.string()) })),
});

function userLine(u: AdminUser): string {
  return `- ${u.userName} (${u.fullName || "no name"}, ${u.email || "no e-mail"})${u.enabled ? "" : " DISABLED"}: ${u.roles.map(roleName).join(", ") || "no roles"}`;
}

function tempLine(t: TemporaryUser): string {
  const state = !t.enabled
    ? "disabled"
    : t.expired
      ? `expired ${t.expires}`
      : `expires ${t.expires ?? "never"}`;
  return `- ${t.username} (${t.fullName}), temporary, ${state}: ${t.roles.map(roleName).join(", ")}`;
}

function tagLine(t: TagPermissions): string {
  return `- ${t.tag}: ${t.permissions.length ? t.permissions.join(", ") : "no access"}`;
}

export default defineTool({
  name: "users_and_access",
  title: "Users, roles and security tags",
  description:
    "Who can see what: every user with their roles and whether enabled, temporary users and expiry, the roles with who holds each, and each security tag with what your roles may do on it. Pass user for one account.",
  toolset: "admin",
  requiredRoles: MANAGER_ROLES,
  inputSchema: input,
  outputSchema: output,
  annotations: READ_ONLY,
  async handler(args, ctx: ToolContext) {
    const api = ctx.api.admin;
    const s = ctx.signal;
    const [names, temp, roles, tags] = await Promise.all([
      args.user ? Promise.resolve([args.user]) : api.listUsers(s),
      api.temporaryUsers(s),
      api.roles(s),
      api.tagPermissions(s),
    ]);
    const tempNames = new Set(temp.temporaryUsers.map((t) => t.username));
    const permanent = args.user ? names : names.filter((n) => !tempNames.has(n));
    const read = permanent.slice(0, MAX_USERS);
    const users = (await mapLimit(read, 4, (n) => api.getUser(n, s))).map(userOf);
    const temporaryUsers = temp.temporaryUsers
      .filter((t) => !args.user || t.username === args.user)
      .map((t) => ({
        userName: t.username,
        fullName: t.fullName,
        roles: t.roles.map(roleName),
        enabled: t.enabled,
        expires: t.expires,
        expired: t.expired,
      }));
    const holders = (role: string) => [
      ...users.filter((u) => u.roles.includes(role)).map((u) => u.userName),
      ...temporaryUsers.filter((t) => t.roles.includes(role)).map((t) => t.userName),
    ];
    const roleRows = roles.map(roleName).map((role) => ({ role, holders: holders(role) }));
    const structured = {
      users,
      usersTotal: permanent.length,
      usersNotShown: permanent.slice(MAX_USERS),
      temporaryUsers,
      roles: args.user ? roleRows.filter((r) => r.holders.length) : roleRows,
      tags,
    };
    const disabled = users.filter((u) => !u.enabled).length;
    const text = lines(
      args.user
        ? `User ${args.user}:`
        : `${plural(permanent.length, "user")} (${plural(disabled, "disabled")}), ${plural(temporaryUsers.length, "temporary user")}, ${plural(roles.length, "role")}, ${plural(tags.length, "security tag")}.`,
      ...users.slice(0, MAX_LINES).map((u) => userLine(u as AdminUser)),
      users.length > MAX_LINES && `… ${users.length - MAX_LINES} more users in the structured answer.`,
      structured.usersNotShown.length > 0 &&
        `Not read in detail (over ${MAX_USERS}): ${listed(structured.usersNotShown)}; pass user to see one.`,
      ...temp.temporaryUsers
        .filter((t) => !args.user || t.username === args.user)
        .slice(0, MAX_LINES)
        .map(tempLine),
      !args.user && "Roles and who holds them:",
      ...(args.user
        ? []
        : roleRows.map((r) => `- ${r.role}: ${r.holders.length ? listed(r.holders, 10) : "nobody"}`)),
      !args.user && "Security tags and what your roles may do on each:",
      ...(args.user ? [] : tags.map(tagLine)),
    );
    return { structured, text };
  },
});
