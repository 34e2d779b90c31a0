import { Permission, type Permissions } from "../store/auth.js";
import type { ExportEntity } from "../store/export/read.js";
import type { ExportOptions } from "./options.js";
import type { ExportScope } from "./plan.js";

/**
 * Who may export what: Read Metadata on every entity the package describes (the folders above it
 * too, with the parent hierarchy), and, when content is included, Download on every asset and content
 * object (the entities that carry files). One entity the caller lacks a permission on refuses the
 * whole export, naming that entity: a package never silently leaves things out.
 */

const KIND: Record<string, string> = { SO: "folder", IO: "asset", CO: "content object" };

export function exportRefusal(
  username: string,
  scope: ExportScope,
  permissions: Permissions,
  options: ExportOptions,
): string | undefined {
  const above = new Set(scope.ancestors.map((a) => a.ref));
  const needs = (e: ExportEntity): Permission[] =>
    options.includeContent === "Content" && e.type !== "SO"
      ? [Permission.READ_METADATA, Permission.DOWNLOAD]
      : [Permission.READ_METADATA];
  for (const e of [...scope.ancestors, ...scope.tree]) {
    for (const p of needs(e)) {
      if (!permissions.permits(e.security_tag, p)) {
        return `User ${username} lacks the ${p} permission on security tag "${e.security_tag}" of ${KIND[e.type] ?? "entity"} ${e.ref}, which this export would include; nothing was exported. Export a folder or asset holding only what you may ${p === Permission.DOWNLOAD ? "download (or export with NoContent)" : "read"}${above.has(e.ref) ? " (it is a folder above the exported entity: set IncludeParentHierarchy to false)" : ""}`;
      }
    }
  }
  return undefined;
}
