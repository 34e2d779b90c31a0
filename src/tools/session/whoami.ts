import { z } from "zod";
import type { ToolContext } from "../context.js";
import { defineTool } from "../define.js";

const whoami = defineTool({
  name: "whoami",
  title: "Who am I",
  description:
    "The signed-in user of the repository: username, full name, tenant, roles, and when the access token and the session expire. Use it to explain what the user may do.",
  toolset: "session",
  inputSchema: z.object({}),
  outputSchema: z.object({
    user: z.string(),
    fullName: z.string().optional(),
    email: z.string().optional(),
    tenant: z.string().optional(),
    roles: z.array(z.string()),
    tokenExpiresAt: z.string().describe("ISO 8601; the token is refreshed automatically before this"),
    sessionEndsAt: z.string().describe("ISO 8601; a fresh sign-in happens automatically after this"),
    service: z.string().describe("Base URL of the repository service"),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler(_args, ctx: ToolContext) {
    const me = await ctx.session.whoAmI(ctx.signal);
    const { sessionStartedAt: _started, ...rest } = me;
    // The display form: a URL may carry credentials or a query string that no answer should repeat.
    const service = ctx.session.displayUrl;
    const structured = { ...rest, service };
    const text = `${me.fullName ? `${me.fullName} (${me.user})` : me.user}${me.tenant ? `, tenant ${me.tenant}` : ""}${me.email ? `, e-mail ${me.email}` : ""}; roles: ${me.roles.join(", ") || "none"}; token valid until ${me.tokenExpiresAt}; session ends ${me.sessionEndsAt} (a fresh sign-in then happens by itself); service ${service}`;
    return { structured, text };
  },
});

export default whoami;
