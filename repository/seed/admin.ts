import { insertSystemRole, insertUser, NO_PASSWORD, setEnabled } from "../store/admin/write.js";
import { Role } from "../store/auth.js";
import { recordConfigEvent } from "../store/config-events/write.js";
import type { Db } from "../store/db.js";

/**
 * Demo administration history, so "who changed what" has true answers out of the box: the demo accounts'
 * creation, a volunteer role, and a volunteer who left (disabled, kept for the record: not counted as a
 * user). Runs inside the demo seed's transaction.
 */

const VOLUNTEER_ROLE = "ROLE_SDB_VOLUNTEER_USER";

export const DEMO_ADMIN = {
  disabledUser: "former.volunteer",
  addedRole: VOLUNTEER_ROLE,
} as const;

export function seedAdminDemo(db: Db): void {
  const ev = (
    at: string,
    category: "USER" | "SECURITY",
    commandType: "CREATE" | "UPDATE" | "DISABLE",
    subject: string,
    summary: string,
    details?: Record<string, unknown>,
  ) =>
    recordConfigEvent(db, {
      at,
      username: "manager",
      category,
      commandType,
      subject,
      summary,
      ...(details ? { details } : {}),
    });
  ev(
    "2025-01-06T09:12:00.000Z",
    "USER",
    "CREATE",
    "curator",
    "Created user curator (SDB_ACCESS_USER, SDB_DATA_MANAGEMENT_USER)",
    {
      fullName: "Daniel Okafor",
      roles: [Role.ACCESS, Role.DATA_MANAGEMENT],
    },
  );
  ev("2025-01-06T09:15:00.000Z", "USER", "CREATE", "reader", "Created user reader (SDB_ACCESS_USER)", {
    fullName: "Ruth Albright",
    roles: [Role.ACCESS],
  });
  insertSystemRole(db, VOLUNTEER_ROLE, "manager", "2025-01-20T14:02:00.000Z");
  ev(
    "2025-01-20T14:02:00.000Z",
    "SECURITY",
    "CREATE",
    VOLUNTEER_ROLE,
    "Added role SDB_VOLUNTEER_USER (no permissions on any tag yet)",
  );
  insertUser(db, {
    username: DEMO_ADMIN.disabledUser,
    fullName: "Tom Hale",
    email: "tom.hale@example.org",
    tenant: "DEMO",
    roles: [Role.ACCESS, VOLUNTEER_ROLE],
    temporary: false,
    expires: null,
    needsChallenge: false,
    passwordHash: NO_PASSWORD,
  });
  ev(
    "2025-01-20T14:05:00.000Z",
    "USER",
    "CREATE",
    DEMO_ADMIN.disabledUser,
    "Created user former.volunteer (SDB_ACCESS_USER, SDB_VOLUNTEER_USER)",
    {
      fullName: "Tom Hale",
      roles: [Role.ACCESS, VOLUNTEER_ROLE],
    },
  );
  ev("2025-02-11T10:30:00.000Z", "USER", "CREATE", "guest", "Created temporary user guest", {
    fullName: "Samuel Fairweather",
    temporary: true,
    needsChallenge: true,
  });
  setEnabled(db, DEMO_ADMIN.disabledUser, false);
  ev(
    "2025-06-30T16:45:00.000Z",
    "USER",
    "DISABLE",
    DEMO_ADMIN.disabledUser,
    "Disabled user former.volunteer and ended their sessions",
  );
}
