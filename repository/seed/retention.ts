import type { Db } from "../store/db.js";
import { createPolicy, type PolicyFields } from "../store/retention/write.js";
import { uuidFrom } from "./ids.js";

/**
 * The demo's retention policies: what a municipal archive keeps and for how long, so retention can be tried
 * out of the box (list, assign, remove). None is assigned: the demo's deletions stay possible until someone
 * assigns one. Fixed refs, so tests and people can name them.
 */

type DemoPolicy = Pick<PolicyFields, "name" | "description"> & Partial<PolicyFields>;

const POLICIES: readonly DemoPolicy[] = [
  {
    name: "Board minutes — permanent",
    description: "Minutes of the Harbour Board and the Town Council: the record of decisions, kept for ever.",
  },
  {
    name: "Financial records — 7 years after creation",
    description: "Rate books, registers of dues and accounts: reviewed seven years after they were created.",
    startDateField: "xip.created",
    period: 7,
    periodUnit: "YEARS",
    expiryAction: "REVIEW",
  },
  {
    name: "Personnel files — 75 years",
    description: "Staff registers and personnel files: closed, kept 75 years from creation, then reviewed.",
    startDateField: "xip.created",
    period: 75,
    periodUnit: "YEARS",
    expiryAction: "REVIEW",
  },
];

/** Names and refs of the demo's policies, in the order they were created. */
export const DEMO_RETENTION_POLICIES = POLICIES.map((p) => ({
  name: p.name,
  ref: uuidFrom(`demo:retention-policy:${p.name}`),
}));

export function seedRetention(db: Db): void {
  const actor = { username: "manager", date: "2025-03-03T10:00:00.000Z" };
  POLICIES.forEach((p, i) => {
    const fields: PolicyFields = {
      securityTag: "open",
      startDateField: null,
      period: null,
      periodUnit: null,
      expiryAction: null,
      expiryActionParameters: null,
      restriction: "DELETE",
      assignable: true,
      ...p,
    };
    createPolicy(db, fields, actor, DEMO_RETENTION_POLICIES[i]?.ref);
  });
}
