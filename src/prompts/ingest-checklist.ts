import { z } from "zod";
import { callText, GROUND_RULES, renderSteps, type Step, unavailable } from "./steps.js";
import { aboutTarget, describeTarget, loadTarget, refArg } from "./target.js";
import { definePrompt } from "./types.js";

/**
 * A checklist around one ingest into a folder: check the destination and for duplicates before, start the
 * ingest, follow the job, then verify what arrived (files identified, fixity recorded, described). The
 * ingest itself waits for the person's go-ahead after the checks.
 */

export default definePrompt({
  name: "ingest_checklist",
  title: "Ingest checklist",
  description:
    "Take material into a folder with the checks a curator makes: destination and duplicates before, the ingest job followed to the end, then what arrived verified (formats, fixity, metadata).",
  args: (deps) =>
    z.object({
      folder: refArg(
        deps,
        "SO",
        "Destination folder ref; type part of its title to complete, or find it with `search`",
      ),
      source: z
        .string()
        .trim()
        .min(1)
        .max(4096)
        .optional()
        .describe("Local file, folder or package to ingest, inside the folders the server allows"),
    }),
  async messages(args, deps, signal) {
    const t = await loadTarget(deps, args.folder, "SO", "folder", signal);
    const source = args.source
      ? `"${args.source}"`
      : "the material the person names (ask for its local path)";
    const before: Step[] = [
      {
        tool: "get_entity",
        args: { ref: t.ref, include: ["path", "metadata"] },
        text: "Confirm the destination with the person: its path from the top and its security tag (restricted or open).",
        covers: "the destination",
      },
      {
        tool: "browse",
        args: { ref: t.ref, limit: 50 },
        text: "See what the folder already holds, to spot an earlier ingest of the same material.",
        covers: "the folder's current contents",
      },
      {
        tool: "search",
        args: { within: t.ref, query: "<words from the material's title>" },
        text: "Search the folder for the material's title words (and `find_by_identifier` for a reference code, if it has one): a duplicate is a finding to raise before ingesting.",
        covers: "the duplicate check",
      },
    ];
    const ingestArgs = { path: args.source ?? "<local path>", folder: t.ref };
    const ingestWhy = unavailable("ingest", deps.audience);
    const after: Step[] = [
      {
        tool: "job_status",
        args: { job: "<handle from ingest>", waitSeconds: 60 },
        text: "Follow the job to the end; on failure report the job's own message and stop.",
        covers: "the ingest's outcome",
      },
      {
        tool: "get_entity",
        args: { ref: "<new asset or folder ref from the job>", include: ["files", "metadata", "events"] },
        text: "Verify what arrived: every file has an identified format (PUID) and a fixity value; the title is right.",
        covers: "verification of what arrived",
      },
      {
        tool: "list_events",
        args: { ref: "<new ref>", types: ["Ingest", "Characterise"] },
        text: "Check the ingest and characterisation events were recorded.",
        covers: "the recorded events",
      },
      {
        tool: "update_metadata",
        text: "If the new material has no descriptive metadata, propose Dublin Core fields (creator, date, rights, description) to the person before adding them.",
        covers: "describing the new material",
      },
    ];
    const text = [
      `Help me ingest ${source} into ${describeTarget(t)}, with the usual checks.`,
      "",
      "Before:",
      renderSteps(before, deps.audience),
      "",
      ingestWhy
        ? `Ingest: \`ingest\` is not available in this session (${ingestWhy}); stop after the checks and tell the person what is needed.`
        : `Ingest, once the person agrees after the checks: call ${callText("ingest", ingestArgs)} (a title and description may be added). It answers with a job handle at once.`,
      "",
      "After:",
      renderSteps(after, deps.audience),
      "",
      "End with a checklist: each item ticked, failed or not checked, with the evidence.",
      GROUND_RULES,
    ].join("\n");
    return aboutTarget(t, `Ingest checklist for ${describeTarget(t)}`, text);
  },
});
