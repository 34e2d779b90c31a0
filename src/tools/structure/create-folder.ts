import { z } from "zod";
import type { ToolContext } from "../context.js";
import { CURATOR_ROLES, defineTool, UserInputError } from "../define.js";
import { refParam } from "../discovery/params.js";
import { loadEntity } from "../support/entities.js";
import { ADDITIVE } from "../support/hints.js";
import { clip, lines } from "../support/text.js";
import { folderPath, spokenPath } from "../support/writes.js";

const input = z.object({
  title: z.string().trim().min(1).max(1000).describe("Title of the new folder"),
  description: z.string().trim().max(10_000).optional().describe("Its description"),
  parent: refParam("Folder to create it in; omit for the top level. Find it with `browse`").optional(),
  securityTag: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .optional()
    .describe("Security tag (e.g. open); default: the parent's. Required at the top level"),
});

const output = z.object({
  folder: z.object({
    ref: z.string(),
    title: z.string(),
    description: z.string().optional(),
    securityTag: z.string(),
    parentRef: z.string().optional(),
  }),
  /** Title path of the folder it is in; "/" for the top level. */
  parentPath: z.string(),
});

export default defineTool({
  name: "create_folder",
  title: "Create a folder",
  description:
    "Create a folder inside a folder or at the top level. Returns its ref and where it is. The security tag defaults to the parent's.",
  toolset: "structure",
  requiredRoles: CURATOR_ROLES,
  inputSchema: input,
  outputSchema: output,
  annotations: ADDITIVE,
  async handler(args, ctx: ToolContext) {
    const parent = args.parent
      ? await loadEntity(ctx, args.parent, {
          expect: ["SO"],
          wrongKind: () => "Folders go inside folders; give a folder ref (find one with `browse`).",
        })
      : null;
    const securityTag = args.securityTag ?? parent?.securityTag;
    if (!securityTag) {
      throw new UserInputError(
        "A folder at the top level needs a `securityTag` (e.g. open); `get_entity` shows the tags of existing folders. Nothing was created.",
      );
    }
    const parentPath = await folderPath(ctx, parent);
    const made = await ctx.api.structure.createFolder(
      {
        title: args.title,
        ...(args.description ? { description: args.description } : {}),
        securityTag,
        ...(parent ? { parentRef: parent.ref } : {}),
      },
      ctx.signal,
    );
    const folder = {
      ref: made.ref,
      title: made.title,
      ...(made.description ? { description: made.description } : {}),
      securityTag: made.securityTag || securityTag,
      ...(made.parentRef ? { parentRef: made.parentRef } : {}),
    };
    return {
      structured: { folder, parentPath },
      text: lines(
        `Created folder “${clip(folder.title, 200)}” ${folder.ref} in ${spokenPath(parentPath)}${parent ? ` (${parent.ref})` : ""}; security tag ${folder.securityTag}.`,
        folder.description && `Description: ${clip(folder.description, 300)}`,
      ),
      audit: { targets: [{ ref: folder.ref, title: folder.title }] },
    };
  },
});
