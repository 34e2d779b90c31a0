import type { Audience } from "../guards/visibility.js";
import { changesRepository, isToolVisible } from "../guards/visibility.js";
import type { AnyTool } from "../tools/define.js";
import { ALL_TOOLS } from "../tools/index.js";

/**
 * The steps of a prompt, rendered as a numbered list. A step names the tool it uses and, where the
 * arguments are known, the exact call (`tool` with {json}), so the model does not guess parameter names.
 * A step whose tool this session does not list is not dropped silently: it says what was skipped and why,
 * so the report can say "not checked" instead of inventing an answer.
 */

export interface Step {
  /** What the step does, in a sentence or two. */
  text: string;
  /** The tool the step uses; the step is skipped when the session does not list it. */
  tool: string;
  /** Arguments known now; rendered as JSON after the tool's name. */
  args?: Record<string, unknown>;
  /** What the report should say was not checked when the tool is missing ("retention"). */
  covers: string;
}

const BY_NAME = new Map<string, AnyTool>(ALL_TOOLS.map((t) => [t.name, t]));

/** Why this session does not list a tool, in words a person can act on; undefined when it does. */
export function unavailable(name: string, audience: Audience): string | undefined {
  const tool = BY_NAME.get(name);
  if (!tool) return "this server has no such tool";
  if (isToolVisible(tool, audience)) return undefined;
  if (!audience.toolsets.has(tool.toolset)) {
    return `the ${tool.toolset} toolset is off (PRESERVATION_TOOLSETS)`;
  }
  if (tool.requires === "local-ingest") return "no ingest folders are configured";
  if (tool.requires === "local-downloads") return "no download folder is configured";
  if (tool.requires === "audit-log") return "no audit log is configured";
  if (audience.readOnly && changesRepository(tool)) return "the server is read-only";
  return "the signed-in user's role does not allow it";
}

/**
 * The read-only tools of a toolset this session lists, by name: the operations and admin toolsets grow, and
 * a report names whatever they hold today rather than a list kept here. Tools that change things are left
 * out: a report only reads.
 */
export function readingToolsOf(toolset: AnyTool["toolset"], audience: Audience): string[] {
  return ALL_TOOLS.filter(
    (t) => t.toolset === toolset && t.annotations.readOnlyHint && isToolVisible(t, audience),
  ).map((t) => t.name);
}

export function callText(tool: string, args?: Record<string, unknown>): string {
  return args ? `\`${tool}\` with ${JSON.stringify(args)}` : `\`${tool}\``;
}

export function renderSteps(steps: Step[], audience: Audience): string {
  return steps
    .map((s, i) => {
      const why = unavailable(s.tool, audience);
      const body = why
        ? `Skip (${s.covers}): \`${s.tool}\` is not available in this session (${why}). Say in the report that ${s.covers} was not checked.`
        : `${s.text} Call ${callText(s.tool, s.args)}.`;
      return `${i + 1}. ${body}`;
    })
    .join("\n");
}

/** What every prompt asks of the answer: facts from tools only, and honesty about gaps. */
export const GROUND_RULES =
  "Report only what the tools returned; name the tool behind each finding. Where a tool failed, was skipped or a list was cut short, say so rather than estimating. Change nothing without the person's go-ahead.";
