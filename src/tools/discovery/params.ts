import { z } from "zod";
import { KINDS } from "../support/kinds.js";

/**
 * Parameters and output shapes shared by the discovery tools. Each description names the tool that finds
 * the value; shared definitions keep the tools/list small and the wording identical everywhere.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A ref: a UUID, checked with a refine (not a schema `pattern`, which would cost tokens in every tools/list)
 * so a title or path passed by mistake gets a message that says what to do.
 */
export function refParam(description: string) {
  return z
    .string()
    .trim()
    .refine((s) => UUID.test(s), {
      error: (issue) =>
        `"${String(issue.input)}" is not a ref; refs are UUIDs (like 7f3e2a10-1c2b-4d5e-8f90-0a1b2c3d4e5f). Find one with \`search\` or \`browse\``,
    })
    .describe(description);
}

export const entityRef = refParam(
  "Ref of a folder, asset or content object; find it with `search` or `browse`",
);

export const kind = z.enum(KINDS);

export const cursor = z
  .string()
  .max(200)
  .optional()
  .describe("`nextCursor` from the previous answer, to get the next page");

export function limit(def: number, max: number) {
  return z.number().int().min(1).max(max).default(def).describe(`Page size (default ${def}, max ${max})`);
}

export const date = (what: string) =>
  z
    .string()
    .trim()
    .max(40)
    .optional()
    .describe(`${what}: 2025, 2025-07, 2025-07-15 or an ISO 8601 date-time`);

// ---- output shapes ----------------------------------------------------------------------------------------

export const item = z.object({ ref: z.string(), type: kind, title: z.string() });

/** Paging facts every list answer carries. */
export const page = {
  total: z.number().int(),
  hasMore: z.boolean(),
  nextCursor: z.string().optional(),
};

export const crumb = z.object({ ref: z.string(), title: z.string() });

export const fixity = z.object({ algorithm: z.string(), value: z.string() });

export const format = z.object({
  puid: z.string().optional(),
  name: z.string().optional(),
  version: z.string().optional(),
});

/** A technical property from characterisation ("Image Width" 3502), with its group and PUID when given. */
export const technicalProperty = z.object({
  name: z.string(),
  value: z.string(),
  group: z.string().optional(),
  puid: z.string().optional(),
});

/** Which file of an asset or content object: shared by `get_file` and `download_file` (see resolveFile). */
export const fileChoice = {
  ref: refParam("Asset or content object ref; find it with `search`, `browse` or `get_entity` (files)"),
  representation: z
    .enum(["Preservation", "Access"])
    .default("Preservation")
    .describe("For an asset: which copy (default Preservation); its first file is used"),
  generation: z.number().int().min(1).optional().describe("Generation number (default: the active one)"),
  bitstream: z.number().int().min(1).default(1).describe("File number within the generation (default 1)"),
};
