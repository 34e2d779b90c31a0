import { z } from "zod";
import type { ToolContext } from "../context.js";
import { defineTool } from "../define.js";
import { accessByToolset, accessLines, rolesInWords, roleWord } from "../support/access.js";
import { READ_ONLY } from "../support/hints.js";
import { lines } from "../support/text.js";

const whoami = defineTool({
  name: "whoami",
  title: "Who am I",
  description:
    "The signed-in user of the repository: username, full name, tenant, roles in words, what they may do here (each toolset: theirs, or which role or setting it needs), and when the access token and the session expire.",
  toolset: "session",
  inputSchema: z.object({}),
  outputSchema: z.object({
    user: z.string(),
    fullName: z.string().optional(),
    email: z.string().optional(),
    tenant: z.string().optional(),
    roles: z.array(z.string()),
    /** The roles as people name them: reader, curator, manager, administrator. */
    roleNames: z.array(z.string()),
    readOnly: z.boolean(),
    toolsets: z.array(
      z.object({
        toolset: z.string(),
        offered: z.array(z.string()),
        notOffered: z.array(z.object({ tools: z.array(z.string()), why: z.string() })),
      }),
    ),
    tokenExpiresAt: z.string().describe("ISO 8601; the token is refreshed automatically before this"),
    sessionEndsAt: z.string().describe("ISO 8601; a fresh sign-in happens automatically after this"),
    service: z.string().describe("Base URL of the repository service"),
  }),
  annotations: READ_ONLY,
  async handler(_args, ctx: ToolContext) {
    const me = await ctx.session.whoAmI(ctx.signal);
    const { sessionStartedAt: _started, ...rest } = me;
    // The display form: a URL may carry credentials or a query string that no answer should repeat.
    const service = ctx.session.displayUrl;
    // The roles just read, not the ones the tool list was made with: they may have changed since.
    const audience = { ...ctx.access.audience, roles: me.roles };
    const access = accessByToolset(ctx.access.tools, audience);
    const structured = {
      ...rest,
      roleNames: me.roles.map(roleWord),
      readOnly: audience.readOnly,
      // Copies: the derived access is shared by every call with the same audience (support/access.ts).
      toolsets: access.map(({ toolset, offered, notOffered }) => ({
        toolset,
        offered: [...offered],
        notOffered: notOffered.map(({ tools, why }) => ({ tools: [...tools], why })),
      })),
      service,
    };
    const text = lines(
      `${me.fullName ? `${me.fullName} (${me.user})` : me.user}${me.tenant ? `, tenant ${me.tenant}` : ""}${me.email ? `, e-mail ${me.email}` : ""}; roles: ${rolesInWords(me.roles)}; token valid until ${me.tokenExpiresAt}; session ends ${me.sessionEndsAt} (a fresh sign-in then happens by itself); service ${service}`,
      audience.readOnly &&
        "Read-only mode is on: nothing in the repository can be changed through this server.",
      "What you may do here, by toolset:",
      ...accessLines(access),
    );
    return { structured, text };
  },
});

export default whoami;
