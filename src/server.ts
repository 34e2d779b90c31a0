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
import { SignInFailed } from "./sign-in-failure.js";
import { startDeadline } from "./tool-deadline.js";
import { ToolDeadlineExceeded, toUserMessage } from "./tool-errors.js";
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
      // One overall deadline per call: it aborts the signal every request takes, and stops waiting for
      // whatever does not take it, so a stalled service cannot hold the call past the client's own limit.
      // Transfers of whole files are exempt: they report progress instead, and stop when the client cancels.
      const deadline = startDeadline(
        tool.transfersFiles ? null : deps.config.toolTimeoutSecs * 1000,
        ctx.mcpReq.signal,
      );
      const toolCtx: ToolContext = {
        entity: deps.entity,
        content: deps.content,
        session: deps.session,
        config: deps.config,
        log: deps.log,
        signal: deadline.signal,
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
        const answer = await deadline.run(tool.handler(args, toolCtx));
        // Signed in late (start-up could not): from now on, server instances show role-gated tools.
        if (deps.audience.roles === undefined && deps.session.state.kind === "active") {
          void refreshAudience(deps).catch(() => {});
        }
        deps.log.debug({ tool: tool.name, ms: Math.round(performance.now() - started) }, "tool call");
        return {
          content: [
            { type: "text" as const, text: answer.text ?? JSON.stringify(answer.structured) },
            ...(answer.links ?? []).map((l) => ({ type: "resource_link" as const, ...l })),
          ],
          structuredContent: answer.structured,
        };
      } catch (thrown) {
        // Past the deadline, whatever the cancelled request threw ("request cancelled") is not the story.
        const err = deadline.expired
          ? new ToolDeadlineExceeded(
              deps.config.toolTimeoutSecs,
              deps.session.state.kind === "signed-out" ? deps.session.displayUrl : undefined,
            )
          : thrown;
        if (err instanceof ChallengeRequired && clientCanElicit(server)) return askForSignInCode(err);
        const message = toUserMessage(err, tool.name);
        if (
          isServiceError(err) ||
          err instanceof UserInputError ||
          err instanceof ChallengeRequired ||
          err instanceof SignInFailed ||
          err instanceof ToolDeadlineExceeded
        ) {
          deps.log.warn(
            {
              tool: tool.name,
              err: isServiceError(err) || err instanceof SignInFailed ? err.toJSON() : err.message,
            },
            "tool call failed",
          );
        } else {
          // A bug, not a service answer: keep the stack for whoever reads the log (stderr only).
          deps.log.error({ tool: tool.name, err }, "tool call failed unexpectedly");
        }
        return { isError: true, content: [{ type: "text" as const, text: message }] };
      } finally {
        deadline.dispose();
      }
    },
  );
}
