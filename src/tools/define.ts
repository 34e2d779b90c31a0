import type { z } from "zod";

/**
 * One definition per tool: everything a model sees (name, title, description, schemas, annotations) and
 * everything the server needs (toolset, required roles, handler). The registry in ./index.ts is the only
 * list; server/server.ts, read-only and role filtering, the README table and the snapshots derive from it.
 */

import type { Toolset } from "./toolsets.js";

export { DEFAULT_TOOLSETS, TOOLSETS, type Toolset } from "./toolsets.js";

/** Capabilities that exist only when the configuration allows them. */
export type Feature = "local-downloads" | "local-ingest" | "audit-log" | "person-sessions";

/** The service's roles that may curate (edit, arrange, ingest); deletion's approval and final deletion need a manager. */
export const CURATOR_ROLES = [
  "ROLE_SDB_DATA_MANAGEMENT_USER",
  "ROLE_SDB_MANAGER_USER",
  "ROLE_SDB_ADMIN_USER",
] as const;
export const MANAGER_ROLES = ["ROLE_SDB_MANAGER_USER", "ROLE_SDB_ADMIN_USER"] as const;
/** System administration (users, storage adapters, authentication settings): administrators only. */
export const ADMIN_ROLES = ["ROLE_SDB_ADMIN_USER"] as const;

/** All four hints, always explicit: clients assume the worst for any hint left out. */
export interface ToolHints {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export interface ToolAnswer<O> {
  structured: O;
  /** Compact human/model-readable rendering; defaults to the JSON of `structured`. */
  text?: string;
  /** Resource links (e.g. to bitstreams) shown next to the answer instead of inlined content. */
  links?: {
    uri: string;
    name: string;
    title?: string;
    mimeType?: string;
    description?: string;
    /** Bytes of the linked resource, when known. */
    size?: number;
  }[];
  /** What a write did, for the audit log (guards/audit.ts); never secrets. */
  audit?: AuditFacts;
  /**
   * A write tool's call that asked for no change and made none (it only read): not an act, so nothing goes
   * to the audit log. Only for calls that cannot have changed anything.
   */
  onlyRead?: true;
}

/** A target of a write as the audit log and confirmation previews name it: ref and title, not a bare ref. */
export interface TargetRef {
  ref: string;
  title: string;
}

export interface AuditFacts {
  targets: TargetRef[];
  /** For metadata changes: what was there before, so the change can be undone from the log. */
  previous?: {
    ref: string;
    entityType: "SO" | "IO" | "CO";
    /** Title and description before a title/description change. */
    title?: string;
    description?: string;
    /** A fragment before it was changed or deleted (absent when a fragment was added). */
    fragment?: { schema: string; xml: string; mref?: string };
  };
  /** The job handle when the write runs as a job. */
  job?: string;
  /** The job had ended when the answer was made (support/job-wait.ts): the act is done, not only started. */
  jobFinished?: boolean;
  /** A sentence the audit entry keeps about how the act was done (e.g. submitted and approved at once). */
  note?: string;
}

/**
 * What a destructive or wide act will do, shown to the person before anything changes (guards/confirm.ts).
 * Everything the person needs to say yes or no: exact titles, counts, the diff.
 */
export interface ConfirmPlan {
  /** One line: "Delete folder “Minutes 1850–1899” and its 3 folders and 120 assets to the recycle bin". */
  summary: string;
  /** Further lines: a diff, titles of what is affected (bounded, saying what was left out). */
  details: string[];
  /**
   * What the confirmation is bound to: each target with a fingerprint of the state the plan was made
   * from (e.g. a digest of the fragment's XML, or of title + parent + tag + child count). The confirmed call
   * plans again and refuses, changing nothing, when any fingerprint differs.
   */
  targets: (TargetRef & { fingerprint: string })[];
  /** Structured preview for programs (counts, diff lines); kept small. */
  preview?: Record<string, unknown>;
}

export interface ToolDefinition<
  I extends z.ZodObject = z.ZodObject,
  O extends z.ZodObject = z.ZodObject,
  C = unknown,
> {
  name: string;
  title: string;
  description: string;
  toolset: Toolset;
  /** The caller needs at least one of these roles; undefined = any authenticated user. */
  requiredRoles?: readonly string[];
  /** A capability the person must have switched on in the configuration (e.g. a download folder). */
  requires?: Feature;
  /**
   * Moves whole files (downloads, later uploads): exempt from the per-call deadline
   * (PRESERVATION_TOOL_TIMEOUT_SECS), since a large file may rightly take longer; it reports progress
   * and stops when the client cancels.
   */
  transfersFiles?: boolean;
  /**
   * Changes nothing in the repository although readOnlyHint is false (completing a sign-in, saving a file to
   * the person's disk): such a tool stays listed in read-only mode, which removes every tool that changes the
   * repository.
   */
  localOnly?: boolean;
  /**
   * Runs without the caller's repository session (`sign_out`): on a person mode team server the caller is not
   * asked to sign in first.
   */
  withoutSession?: boolean;
  inputSchema: I;
  outputSchema: O;
  annotations: ToolHints;
  /**
   * Destructive or wide acts declare a plan: the guard calls it first and, unless the person already
   * confirmed, answers with the plan and a sealed confirmation token (or asks the person in a form) instead
   * of running the handler. Return undefined when these particular arguments need no confirmation (e.g. a
   * move of one asset rather than a folder with contents). The plan must change nothing.
   */
  confirm?: (args: z.infer<I>, ctx: C) => Promise<ConfirmPlan | undefined>;
  handler: (args: z.infer<I>, ctx: C) => Promise<ToolAnswer<z.infer<O>>>;
}

/** Identity function that exists for type inference, so each tool's handler sees its own schemas. */
export function defineTool<I extends z.ZodObject, O extends z.ZodObject, C>(
  def: ToolDefinition<I, O, C>,
): ToolDefinition<I, O, C> {
  return def;
}

/** Any tool, whatever its schemas: what the registry and filters handle. */
// biome-ignore lint/suspicious/noExplicitAny: a heterogeneous list of tools cannot name each one's schemas.
export type AnyTool = ToolDefinition<any, any, any>;

/** An error the caller can fix by changing the input; its message is shown to the model as is. */
export class UserInputError extends Error {
  override readonly name = "UserInputError";
}
