import { randomUUID } from "node:crypto";
import {
  type CallToolResult,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  type McpServer,
  type ServerContext,
  UrlElicitationRequiredError,
} from "@modelcontextprotocol/server";
import { type Session, SignInRequired } from "../session/session.js";
import { LINK_TTL_MS, type SignInLinks } from "./links.js";
import type { PersonSessions } from "./people.js";

/**
 * Before a tool runs on a person mode team server: is the caller signed in to the repository as themselves?
 * If not, they are sent to this server's sign-in page, in the way their client understands:
 * - 2026-07-28 clients that declared URL elicitation: an input-required result with a URL-mode elicitation
 *   (`inputRequired.elicitUrl`); when the client comes back (the person opened the page), the call waits a
 *   while for the sign-in to finish and then runs as the person;
 * - 2025-era clients: the URL elicitation required error (-32042, `UrlElicitationRequiredError`), after which
 *   the client retries the call. Over stateless HTTP a 2025 client's capabilities are not known to the
 *   instance serving the call, so the error is sent unless the client is known to lack URL elicitation; its
 *   message carries the link too, for clients that only show it;
 * - everyone else: the link in the tool's answer (an error result, so the model tells the person).
 */

const ANSWER_KEY = "repository_sign_in";

export interface PersonGate {
  readonly subject: string;
  /** Undefined: run the tool as the person. Otherwise the answer to give instead (or a thrown -32042). */
  check(
    server: McpServer,
    ctx: ServerContext,
    session: Session,
    tool: string,
    waitMs: number,
  ): Promise<CallToolResult | InputRequiredResult | undefined>;
  /** The answer for a call that met SignInRequired while it ran (the session ended meanwhile). */
  ask(server: McpServer, tool: string, why: SignInRequired): CallToolResult | InputRequiredResult;
  signOut(): Promise<void>;
}

export class PersonMode {
  constructor(
    readonly people: PersonSessions,
    readonly links: SignInLinks,
    /** This server's public origin (the OAuth audience's, else the bound URL's). */
    private readonly origin: () => string,
  ) {}

  /** `label`: the caller as a person recognises them (shown on the sign-in page), when the token says. */
  gateFor(subject: string, label?: string): PersonGate {
    const mode = this;
    return {
      subject,
      async check(server, ctx, session, tool, waitMs) {
        const answered = inputResponse(ctx.mcpReq.inputResponses, ANSWER_KEY);
        if (answered.kind === "elicit") {
          if (answered.action !== "accept") {
            return textAnswer("Sign-in to the repository was declined; nothing was done.");
          }
          // The person agreed to open the page; they may still be typing. Wait a while for them.
          if (!(await mode.people.waitForSignIn(subject, waitMs, ctx.mcpReq.signal))) {
            return textAnswer(
              `Not signed in to the repository yet. Finish signing in on the page that was opened, then call \`${tool}\` again.`,
            );
          }
        }
        try {
          await session.whoAmI(ctx.mcpReq.signal);
          return undefined;
        } catch (err) {
          if (err instanceof SignInRequired) return this.ask(server, tool, err);
          throw err;
        }
      },
      ask(server, tool, why) {
        return mode.#ask(server, subject, label, tool, why);
      },
      signOut: () => mode.people.signOut(subject),
    };
  }

  #ask(server: McpServer, subject: string, label: string | undefined, tool: string, why: SignInRequired) {
    const { state, expiresAt } = this.links.issue(subject, label);
    const url = `${this.origin()}/sign-in?state=${encodeURIComponent(state)}`;
    const until = new Date(expiresAt).toISOString();
    const message = `${why.message} Sign in to the repository with your own account to use ${tool}; the page asks for your user name, password and tenant (and a code if your account has two-factor sign-in). The link works once, for ${LINK_TTL_MS / 60_000} minutes, only for you.`;
    const version = server.server.getNegotiatedProtocolVersion();
    const modern = version !== undefined && version >= "2026-07-28";
    const caps = server.server.getClientCapabilities();
    const canOpenUrl = caps?.elicitation?.url !== undefined;
    if (modern && canOpenUrl) {
      return inputRequired({ inputRequests: { [ANSWER_KEY]: inputRequired.elicitUrl({ message, url }) } });
    }
    if (!modern && (caps === undefined || canOpenUrl)) {
      throw new UrlElicitationRequiredError(
        [{ mode: "url", elicitationId: randomUUID(), url, message }],
        `Sign-in to the repository required: open ${url} (until ${until}), then call ${tool} again.`,
      );
    }
    return textAnswer(
      `${why.message} Open ${url} in a browser and sign in with your own repository account (the link works once, until ${until}, only for you), then call \`${tool}\` again.`,
    );
  }
}

function textAnswer(text: string): CallToolResult {
  return { isError: true, content: [{ type: "text", text }] };
}
