import type { McpServer } from "@modelcontextprotocol/server";
import collectionOverview from "./collection-overview.js";
import curationReview from "./curation-review.js";
import ingestChecklist from "./ingest-checklist.js";
import type { PromptDefinition, PromptDeps } from "./types.js";
import weeklyOperationsReport from "./weekly-operations-report.js";

export type { PromptDeps } from "./types.js";

/**
 * Prompts that encode good practice: each names the real tools to call, with the arguments known, and
 * fills in the folder's or asset's title from the service. The only list; prompts/list shows this order.
 */
export const ALL_PROMPTS: readonly PromptDefinition[] = [
  collectionOverview,
  curationReview,
  ingestChecklist,
  weeklyOperationsReport,
] as readonly PromptDefinition[];

export function registerPrompts(server: McpServer, deps: PromptDeps): void {
  for (const p of ALL_PROMPTS) {
    server.registerPrompt(
      p.name,
      { title: p.title, description: p.description, argsSchema: argsOf(p, deps) },
      (args, ctx) => p.messages(args, deps, ctx.mcpReq.signal),
    );
  }
}

/**
 * Each prompt's argument schema, made once per service client rather than per server instance: over HTTP
 * every request builds a server, and making these (zod objects with completion callbacks) was most of what
 * building one cost. The completions use only the client and the logger, shared by every instance of the
 * process.
 */
const ARGS = new WeakMap<object, Map<string, ReturnType<PromptDefinition["args"]>>>();
function argsOf(p: PromptDefinition, deps: PromptDeps): ReturnType<PromptDefinition["args"]> {
  let made = ARGS.get(deps.content);
  if (!made) {
    made = new Map();
    ARGS.set(deps.content, made);
  }
  let args = made.get(p.name);
  if (!args) {
    args = p.args(deps);
    made.set(p.name, args);
  }
  return args;
}
