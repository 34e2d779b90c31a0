import { z } from "zod";
import type { AdminUser, MigrationDraft, MigrationProfile } from "../../api/admin.js";
import { UserInputError } from "../define.js";

/** What the admin tools share: bounds of their lists, role names as people read them. */

/** Users read in detail (one request each) for an overview; the rest are named only. */
export const MAX_USERS = 50;
/** Lines of any list in a text answer. */
export const MAX_LINES = 20;

/** `ROLE_SDB_MANAGER_USER` and `SDB_MANAGER_USER` → `SDB_MANAGER_USER` (the Admin API's form). */
export function roleName(role: string): string {
  return role.replace(/^ROLE_/, "");
}

/** "a, b, c and 4 more". */
export function listed(items: readonly string[], max = MAX_LINES): string {
  const shown = items.slice(0, max).join(", ");
  return items.length > max ? `${shown} and ${items.length - max} more` : shown;
}

export function percent(n: number | null | undefined): string {
  return n === null || n === undefined ? "" : `${Number.isInteger(n) ? n : n.toFixed(1)}%`;
}

export const userNameParam = z
  .string()
  .trim()
  .min(1)
  .max(256)
  .regex(/^[^/\\?#\s]+$/, "a user name has no spaces, slashes, ? or #")
  .describe("User name (often an e-mail address); list them with `users_and_access`");

/** A migration draft by id or by name (any case); otherwise the drafts there are, so the next call can pick. */
export function findDraft(drafts: readonly MigrationDraft[], wanted: string): MigrationDraft {
  const d =
    drafts.find((x) => x.id === wanted) ?? drafts.find((x) => x.name.toLowerCase() === wanted.toLowerCase());
  if (!d) {
    const known = drafts.map((x) => `“${x.name}” ${x.id} (${x.status})`);
    throw new UserInputError(
      `No migration draft "${wanted}". Drafts: ${known.length ? listed(known, 10) : "none"}.`,
    );
  }
  return d;
}

/** A migration profile's formats as people read them: "fmt/40 → fmt/95", "fmt/18 retained". */
export function profileFormats(p: MigrationProfile | undefined): string[] {
  return (p?.formats ?? []).map((f) =>
    f.action === "MIGRATE" ? `${f.puid} → ${f.targetPuid}` : `${f.puid} retained`,
  );
}

/** A user as the admin tools answer them. */
export const userOut = z.object({
  userName: z.string(),
  fullName: z.string(),
  email: z.string(),
  enabled: z.boolean(),
  roles: z.array(z.string()),
});

export function userOf(u: AdminUser): z.infer<typeof userOut> {
  return {
    userName: u.userName,
    fullName: u.fullName,
    email: u.email,
    enabled: u.enabled,
    roles: u.roles.map(roleName),
  };
}
