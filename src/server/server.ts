import { McpServer, type RegisteredTool } from "@modelcontextprotocol/server";
import { z } from "zod";
import { createServiceClient, type ServiceClient } from "../api/index.js";
import { ConfirmationRequiredSchema } from "../guards/confirm.js";
import { installUnknownArgumentMessage, strictInput } from "../guards/strict-inputs.js";
import { type Audience, changesRepository, isToolVisible } from "../guards/visibility.js";
import { offerSubscriptions, type SubscriptionSink } from "../live/subscribe-handlers.js";
import { registerPrompts } from "../prompts/index.js";
import { registerResources } from "../resources/index.js";
import type { Session } from "../session/session.js";
import type { AnyTool } from "../tools/define.js";
import { ALL_TOOLS } from "../tools/index.js";
import { notOfferedAnswer, rolesInWords } from "../tools/support/access.js";
import { TOOLSET_IDS, TOOLSETS, type ToolsetInfo } from "../tools/toolsets.js";
import { toolCallHandler } from "./call-boundary.js";
import { answerToolsNotOffered } from "./not-offered.js";
import { type LiveServer, type ServerDeps, type ServerRuntime, serverRuntime } from "./runtime.js";
import { lazySchema, listedInput, listedOutput } from "./schemas.js";

export const SERVER_INFO = { name: "preservation-mcp", version: "0.1.0" };

export const INSTRUCTIONS = `Tools for a digital preservation repository (Preservica-compatible). The collection is a tree:
folders (SO) hold assets (IO); an asset has representations (Preservation, Access) of content objects (CO), whose
generations hold the files (bitstreams). Start with \`search\` or \`browse\`; pass the refs they return to the other
tools. Lists are paged: pass \`cursor\` back for more.`;

/**
 * The server's instructions: the overview, then how the tools this session is offered fit together. A
 * toolset's instructions (its write and confirmation flows) come only with a tool of it that acts, so a
 * reader is not told about flows they cannot use, but is told why (and that `whoami` explains).
 */
export function instructionsFor(audience: Audience): string {
  const offered = ALL_TOOLS.filter((t) => isToolVisible(t, audience));
  const extra = TOOLSET_IDS.filter((t) => offered.some((o) => o.toolset === t && !o.annotations.readOnlyHint))
    .map((t) => (TOOLSETS[t] as ToolsetInfo).instructions)
    .filter(Boolean);
  const writes = audience.readOnly
    ? ["Read-only mode: nothing in the repository can be changed through these tools."]
    : audience.roles && !offered.some(changesRepository)
      ? [
          `This session (${rolesInWords(audience.roles)}) is offered no tool that changes the repository. Asked for a change, say so and which role it needs (\`whoami\` tells), rather than trying.`,
        ]
      : [];
  return [INSTRUCTIONS, ...extra, ...writes].join("\n");
}

const TOOLS_BY_NAME = new Map(ALL_TOOLS.map((t) => [t.name, t]));

// Where the callers of buildServer (start-up, the tour, tests) find what it takes.
export type { ServerDeps, ServerRuntime } from "./runtime.js";
export { personDeps, readOnlyDeps, serverRuntime } from "./runtime.js";

/** Resource subscriptions this instance offers (live resources; see src/live/). */
export interface Watching {
  /** A 2025 session's: `resources/subscribe` and `resources/unsubscribe` record what it watches here. */
  sink?: SubscriptionSink;
  /** A 2026-07-28 instance: `subscriptions/listen` (served by the SDK) may ask for resource updates. */
  listen?: boolean;
}

/**
 * Builds one McpServer from the configuration. Cheap and stateless, so the HTTP entry can call it per
 * request: the session (token, refresh) is shared through `deps` and outlives each instance.
 */
export function buildServer(deps: ServerDeps, watching: Watching = {}): McpServer {
  const runtime = serverRuntime(deps);
  const subscribe = watching.sink !== undefined || watching.listen === true;
  const server = new McpServer(SERVER_INFO, {
    capabilities: {
      tools: { listChanged: true },
      // `subscribe` only where updates can really arrive: live resources on, and a session (2025) or a
      // listen stream (2026) to carry them.
      resources: subscribe ? { subscribe: true } : {},
      prompts: {},
      completions: {},
      // What a tool call ran into (a failure, a write recorded in the audit log), as notifications/message
      // for clients that show a log: only at or above the level the client asked for (2025: logging/setLevel;
      // 2026-07-28: the level in each request's _meta), never secrets. The server's own log stays on stderr.
      logging: {},
    },
    instructions: instructionsFor(runtime.audience),
  });
  if (watching.sink) offerSubscriptions(server, watching.sink);
  const live: LiveServer = { server, registered: new Map(), api: serviceClientOf(runtime.session) };
  syncTools(live, runtime);
  answerToolsNotOffered(server, (name) => {
    const tool = live.registered.has(name) ? undefined : TOOLS_BY_NAME.get(name);
    return tool && notOfferedAnswer(tool, runtime.audience, runtime.session.username);
  });
  track(runtime, live);
  registerResources(server, {
    entity: live.api.entity,
    content: live.api.content,
    operations: live.api.operations,
    log: runtime.log,
  });
  registerPrompts(server, {
    entity: live.api.entity,
    content: live.api.content,
    log: runtime.log,
    audience: runtime.audience,
  });
  return server;
}

/**
 * One service client per session: the API objects hold nothing but the session's HTTP client, so every
 * server instance (one per HTTP request) shares them, and what is made once per client (prompt argument
 * schemas) stays made.
 */
const CLIENTS = new WeakMap<Session, ServiceClient>();
export function serviceClientOf(session: Session): ServiceClient {
  let api = CLIENTS.get(session);
  if (!api) {
    api = createServiceClient(session.http);
    CLIENTS.set(session, api);
  }
  return api;
}

/**
 * Remembers a server instance for re-syncing its tool list. Over HTTP every request builds one, so the
 * references to instances already collected are swept as new ones arrive: the set stays the size of the live
 * ones instead of growing with every request.
 */
const SWEEP_AT = 64;
function track(runtime: ServerRuntime, live: LiveServer): void {
  if (runtime.live.size >= SWEEP_AT)
    for (const ref of runtime.live) if (!ref.deref()) runtime.live.delete(ref);
  runtime.live.add(new WeakRef(live));
}

/** Registers the tools the audience may now see and removes the others (each change tells the client). */
function syncTools(live: LiveServer, runtime: ServerRuntime): void {
  const signedIn = () => refreshAudience(runtime);
  for (const tool of ALL_TOOLS) {
    const visible = isToolVisible(tool, runtime.audience);
    const current = live.registered.get(tool.name);
    if (visible && !current) {
      live.registered.set(
        tool.name,
        registerTool(live.server, tool, toolCallHandler(tool, live, runtime, signedIn)),
      );
    } else if (!visible && current) {
      current.remove();
      live.registered.delete(tool.name);
    }
  }
}

/**
 * After a sign-in completes (or a re-login), the roles are known: every live server instance updates its
 * tool list, which sends `notifications/tools/list_changed` to clients that can hear it.
 */
async function refreshAudience(runtime: ServerRuntime): Promise<void> {
  const roles = (await runtime.session.whoAmI()).roles;
  const before = runtime.audience.roles?.join(",");
  runtime.audience.roles = roles;
  if (before === roles.join(",")) return;
  for (const ref of runtime.live) {
    const live = ref.deref();
    if (!live) runtime.live.delete(ref);
    else syncTools(live, runtime);
  }
}

/** What the model may pass besides the tool's own arguments when the tool asks for confirmation. */
const CONFIRMATION_ARG = z
  .string()
  .max(8192)
  .optional()
  .describe("Only once the person agreed to a preview: its token");

/**
 * The schemas as registered: strict inputs; a confirmed tool also takes `confirmation` and may answer a
 * preview. Made once per tool, on first use (lazySchema), and kept: over HTTP every request builds a server,
 * and the JSON Schema each lists is then computed once, not per request.
 */
const REGISTERED = new WeakMap<AnyTool, { input: z.ZodObject; output: z.ZodObject }>();
function registeredSchemas(tool: AnyTool): { input: z.ZodObject; output: z.ZodObject } {
  let schemas = REGISTERED.get(tool);
  if (!schemas) {
    // Installed as the tools are registered, as when their schemas were made here: the message must not
    // wait for the first call.
    installUnknownArgumentMessage();
    schemas = tool.confirm
      ? {
          input: lazySchema(() =>
            listedInput(strictInput(tool.inputSchema.safeExtend({ confirmation: CONFIRMATION_ARG }))),
          ),
          output: lazySchema(() =>
            listedOutput(
              tool.outputSchema
                .partial()
                .safeExtend({ confirmationRequired: ConfirmationRequiredSchema.optional() }),
            ),
          ),
        }
      : {
          input: lazySchema(() => listedInput(strictInput(tool.inputSchema))),
          output: lazySchema(() => listedOutput(tool.outputSchema)),
        };
    REGISTERED.set(tool, schemas);
  }
  return schemas;
}

/** Lists `tool` on `server` with its registered schemas; `handler` is its call boundary. */
function registerTool(
  server: McpServer,
  tool: AnyTool,
  handler: ReturnType<typeof toolCallHandler>,
): RegisteredTool {
  const schemas = registeredSchemas(tool);
  return server.registerTool(
    tool.name,
    {
      title: tool.title,
      description: tool.description,
      inputSchema: schemas.input,
      outputSchema: schemas.output,
      annotations: { title: tool.title, ...tool.annotations },
    },
    handler,
  );
}
