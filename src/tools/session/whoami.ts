import { z } from "zod";
import type { WhoAmI } from "../../session/session.js";
import type { ToolContext } from "../context.js";
import { defineTool } from "../define.js";
import { accessByToolset, accessLines, rolesInWords, roleWord } from "../support/access.js";
import { READ_ONLY } from "../support/hints.js";
import { lines } from "../support/text.js";

const output = z.object({
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
});

const whoami = defineTool({
  name: "whoami",
  title: "Who am I",
  description:
    "The signed-in user of the repository: username, full name, tenant, roles in words, what they may do here (each toolset: theirs, or which role or setting it needs), and when the access token and the session expire.",
  toolset: "session",
  inputSchema: z.object({}),
  outputSchema: output,
  annotations: READ_ONLY,
  async handler(_args, ctx: ToolContext) {
    const me = await ctx.session.whoAmI(ctx.signal);
    // The display form: a URL may carry credentials or a query string that no answer should repeat.
    const service = ctx.session.displayUrl;
    const known = answers.get(me);
    if (known && known.access === ctx.access && known.service === service) return known.answer;
    const answer = answerFor(me, ctx.access, service);
    answers.set(me, { access: ctx.access, service, answer });
    return answer;
  },
});

type Answer = { structured: z.infer<typeof output>; text: string };

/**
 * The answer made for each WhoAmI the session gave, with the access table and service it was made with. The
 * session gives the same object until the token, the roles or the session change, and whoami is asked often:
 * making its answer (every toolset's tools, in words) cost ~40 us and ~19 KB a call. Frozen, since every call
 * with the same facts hands out the same answer.
 */
const answers = new WeakMap<WhoAmI, { access: ToolContext["access"]; service: string; answer: Answer }>();

function answerFor(me: WhoAmI, shared: ToolContext["access"], service: string): Answer {
  const { sessionStartedAt: _started, ...rest } = me;
  // The roles just read, not the ones the tool list was made with: they may have changed since.
  const audience = { ...shared.audience, roles: me.roles };
  const access = accessByToolset(shared.tools, audience);
  const structured = {
    ...rest,
    roles: [...me.roles],
    roleNames: me.roles.map(roleWord),
    readOnly: audience.readOnly,
    // Copies: the derived access is shared by every answer for the same audience (support/access.ts).
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
  return deepFreeze({ structured, text });
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

export default whoami;
