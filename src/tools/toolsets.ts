/**
 * Every toolset declared once: its id, what it is for, whether it is on by default, and the instructions a
 * model gets when it is on. PRESERVATION_TOOLSETS, the visibility filter, the server's instructions and the
 * README table all derive from this table.
 *
 * The defaults suit a curator on stdio: find and read, edit descriptions, arrange folders, take things in,
 * send things out, follow the jobs that does. Deletion, retention and bulk CSV edits are opt-in: they are
 * rarer, wider, and a person should choose to hand them to an assistant.
 */

export interface ToolsetInfo {
  description: string;
  defaultOn: boolean;
  /** Added to the server's instructions when the toolset is on: how its tools fit together. */
  instructions?: string;
}

export const TOOLSETS = {
  discovery: {
    description:
      "Search, browse and read the collection: entities, metadata, files, events; save files where a download folder is configured",
    defaultOn: true,
  },
  session: {
    description: "Who am I, and completing sign-in challenges",
    defaultOn: true,
  },
  metadata: {
    description:
      "Edit descriptions: titles, descriptive metadata fragments (Dublin Core and other schemas), identifiers, links; undo a change from the audit log",
    defaultOn: true,
    instructions:
      "Read a fragment with `read_metadata` before changing it; overwriting or deleting a fragment asks the person to confirm.",
  },
  structure: {
    description:
      "Arrange the collection: create folders, move entities or whole subtrees, change security tags",
    defaultOn: true,
    instructions: "Moving or re-tagging a folder with its contents asks the person to confirm first.",
  },
  lifecycle: {
    description:
      "Delete to the recycle bin, recover, finally delete; replace a content object's file; add an access representation",
    defaultOn: false,
    instructions:
      "Deletion and content replacement always show a preview and need the person's confirmation; a deletion then waits for a manager's approval in the service.",
  },
  retention: {
    description:
      "Retention policies: list them, see an asset's assignments, assign and remove; managers create, change and delete policies",
    defaultOn: false,
  },
  ingest: {
    description: "Take in local files, folders or ready packages from the folders the person allowed",
    defaultOn: true,
    instructions:
      "Ingest uploads, waits a few seconds and names the assets it created; a longer ingest answers with a job handle to follow with `job_status`.",
  },
  export: {
    description: "Export a folder or asset as a package into the download folder",
    defaultOn: true,
    instructions:
      "A small export is saved and verified at once; a larger one answers with a job handle, and `job_status` saves the package when it is ready.",
  },
  jobs: {
    description:
      "Follow long work (ingest, export, CSV edits, subtree moves, deletions): state, progress, result",
    defaultOn: true,
    instructions:
      "Tools that start a job wait a few seconds and answer its outcome; only work still running answers with a job handle (and how long it will likely take): follow that with `job_status`.",
  },
  bulk: {
    description:
      "Metadata edits from a CSV file: a dry run row by row, then apply as a job; metadata groups listed, and managed by managers",
    defaultOn: false,
  },
  operations: {
    description:
      "What the repository is doing: processes and their failures, workflows, reports; what was changed through the assistant (the audit trail)",
    defaultOn: false,
    instructions:
      "Reports and workflow starts run as jobs: a quick one answers its outcome, a longer one a job handle to follow with `job_status`.",
  },
  admin: {
    description:
      "Administration: users, security tags and roles, storage and quota, entitlements, configuration history, authentication settings, migration policy, the format registry",
    defaultOn: false,
    instructions:
      "Changes to users, storage, authentication or policy are confirmed first and written to the audit log.",
  },
} as const satisfies Record<string, ToolsetInfo>;

export type Toolset = keyof typeof TOOLSETS;

export const TOOLSET_IDS = Object.keys(TOOLSETS) as Toolset[];

/** Toolsets enabled when PRESERVATION_TOOLSETS is unset or "default". */
export const DEFAULT_TOOLSETS: Toolset[] = TOOLSET_IDS.filter((t) => TOOLSETS[t].defaultOn);
