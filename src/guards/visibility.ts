import type { Config } from "../config.js";
import { type AnyTool, DEFAULT_TOOLSETS, type Feature, TOOLSETS, type Toolset } from "../tools/define.js";

/**
 * Which tools a caller sees, decided in one ordered place (as GitHub's MCP server does): the tool's own
 * configuration need (e.g. a download folder) → toolset enabled
 * → read-only mode (derived from the tool's own readOnlyHint and localOnly, never a second list) → the caller's roles.
 * Tools filtered out are not registered at all, so a model never sees a tool it cannot use.
 */

/** `setting`: what the person called the setting (`--toolsets` or PRESERVATION_TOOLSETS), for the error. */
export function resolveToolsets(requested: string[], setting = "PRESERVATION_TOOLSETS"): Set<Toolset> {
  const out = new Set<Toolset>();
  for (const name of requested) {
    if (name === "default") for (const t of DEFAULT_TOOLSETS) out.add(t);
    else if (name === "all") for (const t of Object.keys(TOOLSETS) as Toolset[]) out.add(t);
    else if (name in TOOLSETS) out.add(name as Toolset);
    else {
      throw new Error(
        `${setting} names an unknown toolset "${name.slice(0, 100)}"; use default, all, or any of ${Object.keys(TOOLSETS).join(", ")}`,
      );
    }
  }
  return out;
}

export interface Audience {
  readOnly: boolean;
  toolsets: Set<Toolset>;
  /** The signed-in user's roles; undefined while sign-in is pending (role-gated tools stay hidden). */
  roles: readonly string[] | undefined;
  /** Capabilities the configuration switched on. */
  features: ReadonlySet<Feature>;
}

export function audienceFrom(config: Config, roles: readonly string[] | undefined): Audience {
  const features = new Set<Feature>();
  if (config.downloadDir) features.add("local-downloads");
  if (config.ingestRoots.length > 0) features.add("local-ingest");
  // A trail that outlives the process: the file, or the shared state of a team server.
  if (config.auditLog || config.stateUrl) features.add("audit-log");
  if (config.identity === "person") features.add("person-sessions");
  return { readOnly: config.readOnly, toolsets: resolveToolsets(config.toolsets), roles, features };
}

export function isToolVisible(tool: AnyTool, a: Audience): boolean {
  if (tool.requires && !a.features.has(tool.requires)) return false;
  if (!a.toolsets.has(tool.toolset)) return false;
  if (a.readOnly && changesRepository(tool)) return false;
  if (tool.requiredRoles) {
    if (!a.roles) return false;
    if (!tool.requiredRoles.some((r) => a.roles?.includes(r))) return false;
  }
  return true;
}

/** Whether a tool can change the repository: what read-only mode removes. */
export function changesRepository(tool: AnyTool): boolean {
  return !tool.annotations.readOnlyHint && tool.localOnly !== true;
}
