import { z } from "zod";
import { GROUND_RULES, renderSteps, type Step } from "./steps.js";
import { aboutTarget, describeTarget, loadTarget, refArg } from "./target.js";
import { definePrompt } from "./types.js";

/**
 * An overview of one folder: what it is, how big, what it holds (kinds, formats, security tags, years,
 * subjects) and what is missing. Counts come from one faceted search over the subtree, not from the model
 * paging through every child and adding up.
 */

/** Facets that answer "what is in here"; all are facetable in the Content API's index. */
const FACETS = [
  "xip.document_type",
  "xip.format_group",
  "xip.security_descriptor",
  "xip.created",
  "oai_dc.subject",
];

export default definePrompt({
  name: "collection_overview",
  title: "Collection overview of a folder",
  description:
    "Describe a folder for a person new to it: what it is, its size and shape, formats, security tags, dates, subjects, and gaps worth a curator's attention.",
  args: (deps) =>
    z.object({
      folder: refArg(deps, "SO", "Folder ref; type part of its title to complete, or find it with `search`"),
    }),
  async messages(args, deps, signal) {
    const t = await loadTarget(deps, args.folder, "SO", "folder", signal);
    const steps: Step[] = [
      {
        tool: "get_entity",
        args: { ref: t.ref, include: ["path", "identifiers", "metadata"] },
        text: "Read the folder itself: its path from the top, description, identifiers and descriptive metadata.",
        covers: "the folder's own description",
      },
      {
        tool: "browse",
        args: { ref: t.ref, limit: 50 },
        text: "See its direct contents (folders and assets); the answer's total says how many there are.",
        covers: "the folder's direct contents",
      },
      {
        tool: "search",
        args: { within: t.ref, facets: FACETS, limit: 5 },
        text: "Count everything below it in one call: the total and the facet counts give kinds, format groups, security tags, years added and subjects. Quote these counts; do not add them up from pages.",
        covers: "the counts below the folder",
      },
      {
        tool: "search",
        args: {
          within: t.ref,
          type: "asset",
          fields: [{ field: "oai_dc.description", values: ["%"], exclude: true }],
          limit: 10,
        },
        text: "Find assets with no Dublin Core description (the total is the gap to report; a few titles as examples).",
        covers: "descriptive gaps",
      },
      {
        tool: "list_events",
        args: { ref: t.ref, limit: 10 },
        text: "See the folder's recent history (when it was made, moved or changed).",
        covers: "the folder's history",
      },
    ];
    const text = [
      `Give me an overview of ${describeTarget(t)}.`,
      "",
      "Steps:",
      renderSteps(steps, deps.audience),
      "",
      "Then write a short overview: what the folder is and where it sits; how many folders and assets it holds (directly and in all); format groups, security tags and years with their counts; main subjects; and gaps (assets without description, restricted material, anything unusual). Keep it to what a person needs to decide where to look next.",
      GROUND_RULES,
    ].join("\n");
    return aboutTarget(t, `Overview of ${describeTarget(t)}`, text);
  },
});
