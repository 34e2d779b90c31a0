import { McpServer } from "@modelcontextprotocol/server";
import type { Logger } from "pino";
import { ContentApi } from "./api/content.js";
import { EntityApi } from "./api/entity.js";
import { isServiceError } from "./api/errors.js";
import type { Config } from "./config.js";
import { type Audience, isToolVisible } from "./guards.js";
import { registerResources } from "./resources/index.js";
import { ChallengeRequired, type Session } from "./session.js";
import { askForSignInCode, clientCanElicit, completeSignInFromAnswer } from "./sign-in.js";
import { toUserMessage } from "./tool-errors.js";
import type { ToolContext } from "./tools/context.js";
import { type AnyTool, UserInputError } from "./tools/define.js";
import { ALL_TOOLS } from "./tools/index.js";

export const SERVER_INFO = { name: "preservation-mcp", version: "0.1.0" };

export const INSTRUCTIONS = `Tools for a digital preservation repository (Preservica-compatible). The collection is a tree:
folders (SO) hold assets (IO); an asset has representations (Preservation, Access) of content objects (CO), whose
generations hold the files (bitstreams). Start with \`search\` or \`browse\`; pass the refs they return to the other
tools. Lists are paged: pass \`cursor\` back for more.`;

export interface ServerDeps {
  config: Config;
  session: Session;
  log: Logger;
  audience: Audience;
}

/**
 * Builds one McpServer from the configuration. Cheap and stateless, so the HTTP entry can call it per
 * request: the session (token, refresh) is shared through `deps` and outlives each instance.
 */
export function buildServer(deps: ServerDeps): McpServer {
  const server = new McpServer(SERVER_INFO, {
    capabilities: { tools: {}, resources: {}, completions: {} },
    instructions: INSTRUCTIONS,
  });
  const entity = new EntityApi(deps.session.http);
  const content = new ContentApi(deps.session.http);
  for (const tool of ALL_TOOLS) {
    if (isToolVisible(tool, deps.audience)) registerTool(server, tool, { ...deps, entity, content });
  }
  registerResources(server, { entity, content, log: deps.log });
  return server;
}

/** After a sign-in completes, the roles are known: later server instances show role-gated tools. */
export async function refreshAudience(deps: ServerDeps): Promise<void> {
  deps.audience.roles = (await deps.session.whoAmI()).roles;
}

function registerTool(
  server: McpServer,
  tool: AnyTool,
  deps: ServerDeps & { entity: EntityApi; content: ContentApi },
): void {
  server.registerTool(
    tool.name,
    {
      title: tool.title,
      description: tool.description,
      inputSchema: tool.inputSchema,
      outputSchema: tool.outputSchema,
      annotations: { title: tool.title, ...tool.annotations },
    },
    async (args: unknown, ctx) => {
      const signIn = await completeSignInFromAnswer(ctx, deps.session, () => refreshAudience(deps));
      if (signIn) return signIn;
      const progressToken = ctx.mcpReq._meta?.progressToken;
      const toolCtx: ToolContext = {
        entity: deps.entity,
        content: deps.content,
        session: deps.session,
        config: deps.config,
        log: deps.log,
        signal: ctx.mcpReq.signal,
        signedIn: () => refreshAudience(deps),
        async progress(progress, total, message) {
          if (progressToken === undefined) return;
          await ctx.mcpReq.notify({
            method: "notifications/progress",
            params: {
              progressToken,
              progress,
              ...(total !== undefined ? { total } : {}),
              ...(message ? { message } : {}),
            },
          });
        },
      };
      const started = performance.now();
      try {
        const answer = await tool.handler(args, toolCtx);
        deps.log.debug({ tool: tool.name, ms: Math.round(performance.now() - started) }, "tool call");
        return {
          content: [
            { type: "text" as const, text: answer.text ?? JSON.stringify(answer.structured) },
            ...(answer.links ?? []).map((l) => ({ type: "resource_link" as const, ...l })),
          ],
          structuredContent: answer.structured,
        };
      } catch (err) {
        if (err instanceof ChallengeRequired && clientCanElicit(server)) return askForSignInCode(err);
        const message = toUserMessage(err, tool.name);
        if (isServiceError(err) || err instanceof UserInputError || err instanceof ChallengeRequired) {
          deps.log.warn(
            { tool: tool.name, err: isServiceError(err) ? err.toJSON() : err.message },
            "tool call failed",
          );
        } else {
          // A bug, not a service answer: keep the stack for whoever reads the log (stderr only).
          deps.log.error({ tool: tool.name, err }, "tool call failed unexpectedly");
        }
        return { isError: true, content: [{ type: "text" as const, text: message }] };
      }
    },
  );
}
