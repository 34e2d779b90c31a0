import { z } from "zod";
import type { Entity } from "../../api/entity.js";
import { fingerprint } from "../../guards/fingerprint.js";
import type { ToolContext } from "../context.js";
import { type ConfirmPlan, CURATOR_ROLES, defineTool, UserInputError } from "../define.js";
import { refParam } from "../discovery/params.js";
import { loadEntity } from "../support/entities.js";
import { generationFacts, pickGeneration } from "../support/files.js";
import { DESTRUCTIVE } from "../support/hints.js";
import { jobFields, jobOutcome, jobState, settleJob } from "../support/job-wait.js";
import { clip, lines } from "../support/text.js";
import { bytes, type LocalFile, localFile, localPath, uploadStream } from "./params.js";

const input = z.object({
  ref: refParam("Content object whose file to replace; find it with `get_entity` (include files)"),
  path: localPath,
});

const file = z.object({
  filename: z.string(),
  size: z.number().int(),
  sha256: z.string().optional(),
  generation: z.number().int(),
});

const output = z.object({
  ...jobFields,
  contentObject: z.object({ ref: z.string(), title: z.string(), asset: z.string().optional() }),
  before: file,
  after: file,
});

interface Replacement {
  co: Entity;
  old: { filename: string; size: number; sha256?: string; generation: number };
  local: LocalFile;
}

async function examine(ctx: ToolContext, args: z.infer<typeof input>): Promise<Replacement> {
  const co = await loadEntity(ctx, args.ref, {
    expect: ["CO"],
    wrongKind: (e) =>
      e.type === "IO"
        ? "Give one of its content objects (`get_entity` with include files lists them). Nothing was changed."
        : "Folders hold no files. Nothing was changed.",
  });
  const gen = await pickGeneration(ctx, co.ref);
  const facts = await generationFacts(ctx, co.ref, gen, 1);
  const b = facts.bitstreams[0];
  if (!b)
    throw new UserInputError(
      `Content object ${co.ref} has no file in generation ${gen.index}; nothing was changed.`,
    );
  const sha = b.fixities.find((f) => /sha-?256/i.test(f.algorithm))?.value.toLowerCase();
  const local = await localFile(ctx, args.path);
  return {
    co,
    old: { filename: b.filename, size: b.size, ...(sha ? { sha256: sha } : {}), generation: gen.index },
    local,
  };
}

function change(r: Replacement): string {
  return `${r.old.filename} (${bytes(r.old.size)}) → ${r.local.filename} (${bytes(r.local.size)})`;
}

export default defineTool({
  name: "replace_content",
  title: "Replace a content object's file",
  description:
    "Replace the file of a content object with a local file (from the allowed ingest folders): it becomes a new active generation; the old one is kept. Shows old → new (name, size, SHA-256) and asks for confirmation. Returns the job.",
  toolset: "lifecycle",
  requiredRoles: CURATOR_ROLES,
  requires: "local-ingest",
  transfersFiles: true,
  inputSchema: input,
  outputSchema: output,
  annotations: DESTRUCTIVE,
  async confirm(args, ctx: ToolContext): Promise<ConfirmPlan> {
    const r = await examine(ctx, args);
    await r.local.close(); // a preview sends nothing; the confirmed call opens the file again
    return {
      summary: `Replace the file of content object “${clip(r.co.title, 120)}”: ${change(r)}`,
      details: [
        `Content object ${r.co.ref}${r.co.parentRef ? ` of asset ${r.co.parentRef}` : ""}; generation ${r.old.generation} → ${r.old.generation + 1} (generation ${r.old.generation} is kept, inactive).`,
        `Old SHA-256 ${r.old.sha256 ?? "not recorded"}`,
        `New SHA-256 ${r.local.sha256} (${r.local.path})`,
      ],
      targets: [
        {
          ref: r.co.ref,
          title: r.co.title,
          fingerprint: fingerprint(
            r.old.generation,
            r.old.sha256,
            r.old.size,
            r.local.path,
            r.local.size,
            r.local.sha256,
          ),
        },
      ],
      preview: {
        before: r.old,
        after: { filename: r.local.filename, size: r.local.size, sha256: r.local.sha256 },
      },
    };
  },
  async handler(args, ctx: ToolContext) {
    const r = await examine(ctx, args);
    const job = await ctx.api.lifecycle
      .replaceContent(r.co.ref, {
        body: uploadStream(ctx, r.local),
        size: r.local.size,
        filename: r.local.filename,
        fixity: { algorithm: "SHA-256", value: r.local.sha256 },
        signal: ctx.signal,
      })
      .finally(() => r.local.close());
    const after = {
      filename: r.local.filename,
      size: r.local.size,
      sha256: r.local.sha256,
      generation: r.old.generation + 1,
    };
    const settled = await settleJob(ctx, job);
    return {
      structured: {
        ...jobState(settled),
        contentObject: {
          ref: r.co.ref,
          title: r.co.title,
          ...(r.co.parentRef ? { asset: r.co.parentRef } : {}),
        },
        before: r.old,
        after,
      },
      text: lines(
        `Replacing the file of content object “${clip(r.co.title, 120)}” ${r.co.ref}: ${change(r)}: ${jobOutcome(settled)}`,
        `Old SHA-256 ${r.old.sha256 ?? "not recorded"} (generation ${r.old.generation}, kept inactive); new SHA-256 ${r.local.sha256} (generation ${after.generation}).`,
      ),
      audit: { targets: [{ ref: r.co.ref, title: r.co.title }], job, jobFinished: settled.finished },
    };
  },
});
