import type { z } from "zod";

/**
 * One definition per tool: everything a model sees (name, title, description, schemas, annotations) and
 * everything the server needs (toolset, required roles, handler). The registry in ./index.ts is the only
 * list; server.ts, read-only and role filtering, the README table and the snapshots derive from it.
 */

export const TOOLSETS = {
  discovery:
    "Search, browse and read the collection: entities, metadata, files, events; save files where a download folder is configured",
  session: "Who am I, and completing sign-in challenges",
} as const;
export type Toolset = keyof typeof TOOLSETS;
/** Toolsets enabled when PRESERVATION_TOOLSETS is unset or "default". */
export const DEFAULT_TOOLSETS: Toolset[] = ["discovery", "session"];

/** Capabilities that exist only when the configuration allows them. */
export type Feature = "local-downloads";

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
  links?: { uri: string; name: string; mimeType?: string; description?: string }[];
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
  inputSchema: I;
  outputSchema: O;
  annotations: ToolHints;
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
