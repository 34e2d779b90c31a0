import { HTTPException } from "hono/http-exception";
import type { XmlNode } from "../http/xml-body.js";

/**
 * The four choices of an `<ExportAction>` (wire-formats.md §2.13), as clients send them:
 * IncludeContent, IncludeMetadata, IncludedGenerations, IncludeParentHierarchy. Values are matched
 * without regard to case (pyPreservica forwards whatever case its caller used once it casefold-matches)
 * and stored in their canonical spelling. A missing element takes the default pyPreservica documents
 * (content, metadata, latest active generations, parent hierarchy); a value outside the allowed ones is
 * a 400 that lists them.
 */

export const INCLUDE_CONTENT = ["Content", "NoContent"] as const;
export const INCLUDE_METADATA = ["Metadata", "NoMetadata", "MetadataWithEvents"] as const;
export const INCLUDED_GENERATIONS = ["LatestActive", "AllActive", "All"] as const;
export const INCLUDE_PARENT_HIERARCHY = ["true", "false"] as const;

export interface ExportOptions {
  includeContent: (typeof INCLUDE_CONTENT)[number];
  includeMetadata: (typeof INCLUDE_METADATA)[number];
  includedGenerations: (typeof INCLUDED_GENERATIONS)[number];
  includeParentHierarchy: (typeof INCLUDE_PARENT_HIERARCHY)[number];
}

export const DEFAULT_EXPORT_OPTIONS: ExportOptions = {
  includeContent: "Content",
  includeMetadata: "Metadata",
  includedGenerations: "LatestActive",
  includeParentHierarchy: "true",
};

export function exportActionExample(entityNs: string): string {
  return `<ExportAction xmlns="${entityNs}"><IncludeContent>Content</IncludeContent><IncludeMetadata>Metadata</IncludeMetadata><IncludedGenerations>LatestActive</IncludedGenerations><IncludeParentHierarchy>false</IncludeParentHierarchy></ExportAction>`;
}

/** Reads the options from a parsed `<ExportAction>`; 400 naming the element and its allowed values. */
export function parseExportOptions(doc: XmlNode, example: string): ExportOptions {
  if (doc.name !== "ExportAction") {
    throw new HTTPException(400, {
      message: `The root element must be ExportAction, not ${doc.name}; send ${example}`,
    });
  }
  const pick = <T extends string>(name: string, allowed: readonly T[], fallback: T): T => {
    const el = doc.children.find((c) => c.name === name);
    if (el === undefined) return fallback;
    const raw = el.text.trim();
    const found = allowed.find((a) => a.toLowerCase() === raw.toLowerCase());
    if (found === undefined) {
      const shown = raw.length > 60 ? `${raw.slice(0, 60)}…` : raw;
      throw new HTTPException(400, {
        message: `${name} must be one of ${allowed.join(", ")}, got "${shown}"; for example ${example}`,
      });
    }
    return found;
  };
  return {
    includeContent: pick("IncludeContent", INCLUDE_CONTENT, DEFAULT_EXPORT_OPTIONS.includeContent),
    includeMetadata: pick("IncludeMetadata", INCLUDE_METADATA, DEFAULT_EXPORT_OPTIONS.includeMetadata),
    includedGenerations: pick(
      "IncludedGenerations",
      INCLUDED_GENERATIONS,
      DEFAULT_EXPORT_OPTIONS.includedGenerations,
    ),
    includeParentHierarchy: pick(
      "IncludeParentHierarchy",
      INCLUDE_PARENT_HIERARCHY,
      DEFAULT_EXPORT_OPTIONS.includeParentHierarchy,
    ),
  };
}
