import { z } from "zod";
import type { Entity } from "../../api/entity.js";
import { fingerprint } from "../../guards/fingerprint.js";
import type { ToolContext } from "../context.js";
import { type ConfirmPlan, CURATOR_ROLES, defineTool, UserInputError } from "../define.js";
import { refParam } from "../discovery/params.js";
import { loadEntity } from "../support/entities.js";
import { OVERWRITE } from "../support/hints.js";
import { jobOutcome, jobState, settleJob } from "../support/job-wait.js";
import { itemOut, spoken, toItem } from "../support/kinds.js";
import * as many from "../support/targets.js";
import { clip, lines } from "../support/text.js";
import {
  type Contents,
  contentsOut,
  contentsPhrase,
  countContents,
  counts,
  sampleLine,
} from "../support/writes.js";
import { childCount } from "./params.js";

const input = z.object({
  ref: refParam("Asset or folder (`search`, `browse`)").optional(),
  ...many.manyParams,
  tag: z.string().trim().min(1).max(200).describe("New security tag, e.g. open or closed"),
  includeDescendants: z.boolean().default(false).describe("Folders: also re-tag everything inside"),
});

const output = z.object({
  ...many.jobFieldsWhenOne,
  entity: itemOut.optional(),
  previousTag: z.string().optional(),
  securityTag: z.string(),
  includeDescendants: z.boolean().optional(),
  /** Many targets: each one's outcome. */
  results: z.array(many.resultShape).optional(),
  /** What is re-tagged with a folder, when includeDescendants. */
  contents: contentsOut.optional(),
});

interface Change {
  entity: Entity;
  /** includeDescendants on a folder that holds something. */
  wide: boolean;
  children: number;
}

type Args = z.infer<typeof input>;

/** Many targets: each is re-tagged itself (what is inside a folder keeps its tags). */
function planTags(args: Args, ctx: ToolContext): Promise<many.ManyPlan<string>> {
  if (args.includeDescendants)
    throw new UserInputError(
      "includeDescendants re-tags one folder's whole subtree: give that folder as `ref`. Nothing was changed.",
    );
  return many.planMany<string>(ctx, args, {
    expect: ["IO", "SO"],
    permission: "Change Security Tag",
    async examine(e) {
      if (e.securityTag === args.tag) return { unchanged: `already ${args.tag}` };
      return {
        change: args.tag,
        line: `${e.securityTag} → ${args.tag}`,
        fingerprint: fingerprint(e.parentRef, e.title, e.securityTag),
      };
    },
  });
}

async function examine(args: Args, ctx: ToolContext): Promise<Change> {
  const entity = await loadEntity(ctx, args.ref as string, {
    expect: ["IO", "SO"],
    wrongKind: (e) =>
      `A content object carries its asset's tag; change the tag of the asset ${e.parentRef ?? ""} instead. Nothing was changed.`,
  });
  const children = entity.type === "SO" && args.includeDescendants ? await childCount(ctx, entity.ref) : 0;
  const wide = children > 0;
  if (!wide && entity.securityTag === args.tag) {
    throw new UserInputError(
      `The ${spoken(entity.type)} “${clip(entity.title, 80)}” already has security tag ${args.tag}; nothing to change.${entity.type === "SO" && !args.includeDescendants ? " To re-tag what is inside it, set includeDescendants." : ""}`,
    );
  }
  return { entity, wide, children };
}

function headline(c: Change, tag: string, contents: Contents | undefined): string {
  const e = c.entity;
  const withIt = contents ? ` and its ${contentsPhrase(contents)}` : "";
  return `security tag of ${spoken(e.type)} “${clip(e.title, 120)}”${withIt}: ${e.securityTag} → ${tag}`;
}

export default defineTool({
  name: "set_security_tag",
  title: "Change a security tag",
  description:
    "Change the security tag of an asset (its files follow) or folder (with includeDescendants, all inside too), or of many (`refs`, a `folder`'s contents). Wide changes are confirmed first. Runs as a job.",
  toolset: "structure",
  requiredRoles: CURATOR_ROLES,
  inputSchema: input,
  outputSchema: output,
  // Overwrites who may see and do what; with descendants, their various previous tags are not kept.
  annotations: OVERWRITE,
  async confirm(args, ctx: ToolContext): Promise<ConfirmPlan | undefined> {
    if (many.isMany(args)) {
      const p = await planTags(args, ctx);
      return many.manyConfirmPlan(
        p,
        `Change the security tag of ${p.changes.length} (${p.from}) to ${args.tag}`,
      );
    }
    const c = await examine(args, ctx);
    if (!c.wide) return undefined;
    const contents = await countContents(ctx, c.entity.ref);
    const e = c.entity;
    return {
      summary: `Change the ${headline(c, args.tag, contents)}`,
      details: [
        `Folder ${e.ref}: ${e.securityTag} → ${args.tag}.`,
        `Everything inside gets ${args.tag}, whatever its tag now (entities that already have it are skipped); assets' content objects follow their asset.`,
        sampleLine(
          contents.titles,
          c.children > contents.titles.length ? `, … (${c.children} directly inside)` : "",
        ),
      ],
      targets: [
        {
          ref: e.ref,
          title: e.title,
          fingerprint: fingerprint(e.parentRef, e.title, e.securityTag, c.children),
        },
      ],
      preview: { from: e.securityTag, to: args.tag, ...counts(contents) },
    };
  },
  async handler(args, ctx: ToolContext) {
    if (many.isMany(args)) {
      const p = await planTags(args, ctx);
      const run = await many.runMany(ctx, "set_security_tag", p, (e) =>
        ctx.api.structure.setSecurityTag(e.ref, e.type, args.tag, false, ctx.signal),
      );
      return {
        structured: { securityTag: args.tag, results: run.results },
        ...many.manyAnswer(`Security tag → ${args.tag}`, p, run),
      };
    }
    const c = await examine(args, ctx);
    const e = c.entity;
    const contents = c.wide ? await countContents(ctx, e.ref) : undefined;
    const job = await ctx.api.structure.setSecurityTag(e.ref, e.type, args.tag, c.wide, ctx.signal);
    const settled = await settleJob(ctx, job);
    const structured = {
      ...jobState(settled),
      entity: toItem(e),
      previousTag: e.securityTag,
      securityTag: args.tag,
      includeDescendants: c.wide,
      ...(contents ? { contents: counts(contents) } : {}),
    };
    return {
      structured,
      text: lines(
        `Changing the ${headline(c, args.tag, contents)}: ${jobOutcome(settled)}`,
        `Ref ${e.ref}.${e.type === "SO" && !c.wide ? " What is inside keeps its tags." : ""}`,
      ),
      audit: { targets: [{ ref: e.ref, title: e.title }], job, jobFinished: settled.finished },
    };
  },
});
