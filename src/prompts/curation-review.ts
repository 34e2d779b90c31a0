import { z } from "zod";
import { GROUND_RULES, renderSteps, type Step, unavailable } from "./steps.js";
import { aboutTarget, describeTarget, loadTarget, refArg } from "./target.js";
import { definePrompt } from "./types.js";

/**
 * A curation review of one asset, in the order a preservation officer checks: description, formats,
 * integrity, retention, access. Each finding is to cite the tool answer it rests on, and the fixes are
 * proposed, not made: the person decides.
 */

/** Tools that make the fixes a review proposes; only those the session lists are named. */
const FIXERS = [
  "update_entity",
  "update_metadata",
  "edit_identifiers",
  "assign_retention",
  "add_representation",
];

export default definePrompt({
  name: "curation_review",
  title: "Curation review of an asset",
  description:
    "Review one asset: missing or thin metadata, formats at risk, integrity (fixity, checks), retention, security tag; findings with evidence and proposed fixes.",
  args: (deps) =>
    z.object({
      asset: refArg(deps, "IO", "Asset ref; type part of its title to complete, or find it with `search`"),
    }),
  async messages(args, deps, signal) {
    const t = await loadTarget(deps, args.asset, "IO", "asset", signal);
    const steps: Step[] = [
      {
        tool: "get_entity",
        args: { ref: t.ref, include: ["path", "identifiers", "metadata", "files", "links", "events"] },
        text: "Read the asset whole: description, identifiers, metadata fragments, files with formats (PUID), sizes and fixity, links, recent events.",
        covers: "the asset's description and files",
      },
      {
        tool: "read_metadata",
        args: { ref: t.ref },
        text: "Read its descriptive metadata (with several fragments, pass each fragment's mref from `get_entity`). Missing metadata: no description, no creator, date or rights, no identifier, placeholder text.",
        covers: "descriptive metadata",
      },
      {
        tool: "list_events",
        args: { ref: t.ref, types: ["IntegrityCheck", "Characterise"], limit: 20 },
        text: "Integrity: when fixity was last checked and whether any check failed; whether the files were characterised. Also note any file without a fixity value.",
        covers: "integrity",
      },
      {
        tool: "get_retention",
        args: { ref: t.ref },
        text: "Retention: the policies assigned, their expiry and what happens then; an asset with none may need one.",
        covers: "retention",
      },
    ];
    const fixers = FIXERS.filter((name) => !unavailable(name, deps.audience)).map((n) => `\`${n}\``);
    const fixes = fixers.length
      ? `each naming the tool that would make it (this session offers ${fixers.join(", ")})`
      : "described in words (this session offers none of the tools that make such changes)";
    const text = [
      `Do a curation review of ${describeTarget(t)}.`,
      "",
      "Steps:",
      renderSteps(steps, deps.audience),
      "",
      "Formats at risk: from the files' formats, flag any file with no PUID (unidentified), formats that are proprietary or obsolete for long-term preservation, and an asset with no Access representation. Say which file and which format; do not guess a PUID.",
      `Then answer with a findings table (area, finding, severity, evidence: the tool and field), followed by proposed fixes, ${fixes}. Areas with nothing wrong get one line saying so.`,
      GROUND_RULES,
    ].join("\n");
    return aboutTarget(t, `Curation review of ${describeTarget(t)}`, text);
  },
});
