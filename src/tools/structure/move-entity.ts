import { z } from "zod";
import type { Entity } from "../../api/entity.js";
import { TOP_LEVEL } from "../../api/structure.js";
import { fingerprint } from "../../guards/fingerprint.js";
import type { ToolContext } from "../context.js";
import { type ConfirmPlan, CURATOR_ROLES, defineTool, UserInputError } from "../define.js";
import { refParam } from "../discovery/params.js";
import { ancestors, loadEntity } from "../support/entities.js";
import { ARRANGE } from "../support/hints.js";
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
  folderPath,
  sampleLine,
  spokenPath,
} from "../support/writes.js";
import { childCount } from "./params.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const input = z.object({
  ref: refParam("Asset or folder to move (`search`, `browse`)").optional(),
  ...many.manyParams,
  destination: z
    .string()
    .trim()
    .refine((s) => UUID.test(s) || s === "top", {
      error: (issue) =>
        `"${String(issue.input)}" is neither a folder ref nor "top"; find folder refs with \`browse\``,
    })
    .describe('Folder to move it into (find it with `browse`), or "top" for the top level (folders only)'),
});

const place = z.object({ ref: z.string().optional(), path: z.string() });

const output = z.object({
  ...many.jobFieldsWhenOne,
  entity: itemOut.optional(),
  from: place.optional(),
  to: place,
  /** Many targets: each one's outcome. */
  results: z.array(many.resultShape).optional(),
  /** What moves with a folder. */
  contents: contentsOut.optional(),
});

interface Move {
  entity: Entity;
  /** null: the top level. */
  destination: Entity | null;
  fromPath: string;
  toPath: string;
  /** Direct children of a folder being moved (0 for an asset). */
  children: number;
}

type Args = z.infer<typeof input>;

interface ManyMove {
  plan: many.ManyPlan<string>;
  destination: Entity | null;
  toPath: string;
}

/** Many targets into one destination: each is examined as a single move would be, refusals kept per target. */
async function planMoves(args: Args, ctx: ToolContext): Promise<ManyMove> {
  const destination =
    args.destination === "top"
      ? null
      : await loadEntity(ctx, args.destination, {
          expect: ["SO"],
          wrongKind: () =>
            "Things are moved into folders; give a destination folder ref (find one with `browse`).",
        });
  // A folder may not go into itself or anything below it.
  const above = new Set(
    destination ? [destination.ref, ...(await ancestors(ctx, destination)).crumbs.map((c) => c.ref)] : [],
  );
  const toPath = await folderPath(ctx, destination);
  const plan = await many.planMany<string>(ctx, args, {
    expect: ["IO", "SO"],
    permission: "Move",
    async examine(e) {
      if ((e.parentRef ?? null) === (destination?.ref ?? null)) return { unchanged: "already there" };
      if (!destination && e.type !== "SO") return { refused: "only folders may be at the top level" };
      if (above.has(e.ref)) return { refused: "the destination is inside it" };
      return {
        change: e.ref,
        line: `→ ${spokenPath(toPath)}`,
        fingerprint: fingerprint(e.parentRef, e.title, e.securityTag),
      };
    },
  });
  return { plan, destination, toPath };
}

/** Loads both ends and refuses, changing nothing, what the service would refuse or what makes no sense. */
async function examine(args: Args, ctx: ToolContext): Promise<Move> {
  const entity = await loadEntity(ctx, args.ref as string, {
    expect: ["IO", "SO"],
    wrongKind: (e) =>
      `A content object stays with its asset; move the asset ${e.parentRef ?? ""} instead. Nothing was moved.`,
  });
  const toTop = args.destination === "top";
  if (toTop && entity.type !== "SO") {
    throw new UserInputError(
      `Only folders may be at the top level, and “${clip(entity.title, 80)}” is an asset; give a destination folder (find one with \`browse\`). Nothing was moved.`,
    );
  }
  const destination = toTop
    ? null
    : await loadEntity(ctx, args.destination, {
        expect: ["SO"],
        wrongKind: () =>
          "Things are moved into folders; give a destination folder ref (find one with `browse`). Nothing was moved.",
      });
  if (destination && entity.type === "SO") {
    // A folder cannot go into itself or anything below it: check before asking the service.
    const { crumbs } = await ancestors(ctx, destination);
    if (destination.ref === entity.ref || crumbs.some((c) => c.ref === entity.ref)) {
      throw new UserInputError(
        `Folder “${clip(entity.title, 80)}” cannot be moved into ${destination.ref === entity.ref ? "itself" : `“${clip(destination.title, 80)}”, which is inside it`}; choose a folder outside it. Nothing was moved.`,
      );
    }
  }
  if ((entity.parentRef ?? null) === (destination?.ref ?? null)) {
    throw new UserInputError(
      `The ${spoken(entity.type)} “${clip(entity.title, 80)}” is already in ${destination ? `“${clip(destination.title, 80)}”` : "the top level"}; nothing to move.`,
    );
  }
  const from = entity.parentRef ? await ctx.entity.get(entity.parentRef, "SO", ctx.signal) : null;
  const [fromPath, toPath, children] = await Promise.all([
    folderPath(ctx, from),
    folderPath(ctx, destination),
    entity.type === "SO" ? childCount(ctx, entity.ref) : 0,
  ]);
  return { entity, destination, fromPath, toPath, children };
}

function headline(m: Move, contents: Contents | undefined): string {
  const what = `${spoken(m.entity.type)} “${clip(m.entity.title, 120)}”`;
  const withIt = contents ? ` and its ${contentsPhrase(contents)}` : "";
  return `${what}${withIt} from ${spokenPath(m.fromPath)} to ${spokenPath(m.toPath)}`;
}

export default defineTool({
  name: "move_entity",
  title: "Move an asset or folder",
  description:
    'Move assets or folders (with all inside) into a folder, or folders to the top level ("top"): one `ref`, `refs`, or a `folder`\'s contents. Runs as a job; a folder with contents or many is confirmed first.',
  toolset: "structure",
  requiredRoles: CURATOR_ROLES,
  inputSchema: input,
  outputSchema: output,
  annotations: ARRANGE,
  async confirm(args, ctx: ToolContext): Promise<ConfirmPlan | undefined> {
    if (many.isMany(args)) {
      const { plan, destination: d, toPath } = await planMoves(args, ctx);
      return many.manyConfirmPlan(
        plan,
        `Move ${plan.changes.length} (${plan.from}) to ${spokenPath(toPath)}; folders take everything in them`,
        d ? [{ ref: d.ref, title: d.title, fingerprint: fingerprint(d.parentRef, d.title, toPath) }] : [],
      );
    }
    const m = await examine(args, ctx);
    if (m.entity.type !== "SO" || m.children === 0) return undefined;
    const contents = await countContents(ctx, m.entity.ref);
    return {
      summary: `Move ${headline(m, contents)}`,
      details: [
        `Folder ${m.entity.ref}; security tag ${m.entity.securityTag}; it keeps its tag and so does everything in it.`,
        `Destination: ${m.destination ? `folder ${m.destination.ref} ${spokenPath(m.toPath)}` : "the top level"}.`,
        sampleLine(
          contents.titles,
          m.children > contents.titles.length ? `, … (${m.children} directly inside)` : "",
        ),
      ],
      targets: [
        {
          ref: m.entity.ref,
          title: m.entity.title,
          fingerprint: fingerprint(m.entity.parentRef, m.entity.title, m.entity.securityTag, m.children),
        },
        ...(m.destination
          ? [
              {
                ref: m.destination.ref,
                title: m.destination.title,
                fingerprint: fingerprint(m.destination.parentRef, m.destination.title, m.toPath),
              },
            ]
          : []),
      ],
      preview: { ...counts(contents), from: m.fromPath, to: m.toPath },
    };
  },
  async handler(args, ctx: ToolContext) {
    if (many.isMany(args)) {
      const { plan, destination: d, toPath } = await planMoves(args, ctx);
      const run = await many.runMany(ctx, "move_entity", plan, (e) =>
        ctx.api.structure.move(e.ref, e.type as "SO" | "IO", d?.ref ?? TOP_LEVEL, ctx.signal),
      );
      return {
        structured: { to: { ...(d ? { ref: d.ref } : {}), path: toPath }, results: run.results },
        ...many.manyAnswer(`Moves to ${spokenPath(toPath)}`, plan, run),
      };
    }
    const m = await examine(args, ctx);
    const contents =
      m.entity.type === "SO" && m.children > 0 ? await countContents(ctx, m.entity.ref) : undefined;
    const job = await ctx.api.structure.move(
      m.entity.ref,
      m.entity.type as "SO" | "IO",
      m.destination?.ref ?? TOP_LEVEL,
      ctx.signal,
    );
    const settled = await settleJob(ctx, job);
    const structured = {
      ...jobState(settled),
      entity: toItem(m.entity),
      from: { ...(m.entity.parentRef ? { ref: m.entity.parentRef } : {}), path: m.fromPath },
      to: { ...(m.destination ? { ref: m.destination.ref } : {}), path: m.toPath },
      ...(contents ? { contents: counts(contents) } : {}),
    };
    const text = lines(
      `Moving ${headline(m, contents)}: ${jobOutcome(settled)}`,
      `Ref ${m.entity.ref}; destination ${m.destination ? `folder ${m.destination.ref}` : "the top level"}.`,
    );
    return {
      structured,
      text,
      audit: {
        targets: [
          { ref: m.entity.ref, title: m.entity.title },
          ...(m.destination ? [{ ref: m.destination.ref, title: m.destination.title }] : []),
        ],
        job,
        jobFinished: settled.finished,
      },
    };
  },
});
