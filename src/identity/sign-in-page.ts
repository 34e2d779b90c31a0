import { randomBytes, timingSafeEqual } from "node:crypto";
import { type Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { getCookie, setCookie } from "hono/cookie";
import type { Logger } from "pino";
import { AuthApi, type LoginOutcome, TwoFactorOutcome } from "../api/auth.js";
import { isServiceError } from "../api/errors.js";
import { HttpClient } from "../api/http.js";
import type { SharedState } from "../state/types.js";
import { LINK_TTL_MS, type LinkState, type SignInLinks } from "./links.js";
import type { PersonSessions } from "./people.js";
import {
  CONTENT_SECURITY_POLICY,
  codePage,
  donePage,
  type FormFields,
  passwordPage,
  refusedPage,
} from "./sign-in-html.js";

/**
 * The sign-in page a person mode team server serves at /sign-in: a caller without a repository session is
 * sent here (URL-mode elicitation, or the link in the tool's answer). The person gives their repository user
 * name, password and tenant, then the two-factor or e-mailed code when the service asks; these go to the
 * service's Authentication API (the same client the server's own session signs in with, `AuthApi`) and the
 * grant becomes the caller's session (people.ts). The password is sent once and kept nowhere: not in the
 * shared state, not in a page, not in a log line.
 *
 * Guards: the link's state is sealed and bound to the caller (links.ts), expires, and signs in once (a nonce
 * spent in the shared state, so on every instance); each form carries a token keyed to the link and to a
 * SameSite=Strict cookie set by the page (double submit), and a cross-site POST is refused; every page refuses
 * framing, loads nothing from anywhere, is not cached and sends no referrer. A link takes a few wrong
 * passwords or codes, then it is spent.
 */

export interface SignInPageOptions {
  links: SignInLinks;
  people: PersonSessions;
  state: SharedState;
  /** The repository service's URL (its Authentication API), and how people see it. */
  serviceUrl: string;
  displayService: string;
  /** Shown pre-filled (PRESERVATION_TENANT). */
  tenant?: string;
  /** The server's public URL is https: the cookie is then Secure. */
  secure: () => boolean;
  log: Logger;
  now?: () => number;
}

/** Wrong passwords or codes one link takes before it is refused (the service's own lockout applies too). */
export const MAX_TRIES = 5;
const COOKIE = "pmcp_sign_in";
const MAX_FORM_BYTES = 16 * 1024;

const HEADERS: Record<string, string> = {
  "Content-Security-Policy": CONTENT_SECURITY_POLICY,
  "X-Frame-Options": "DENY",
  "Cache-Control": "no-store",
  "Referrer-Policy": "no-referrer",
  "X-Content-Type-Options": "nosniff",
  "Cross-Origin-Opener-Policy": "same-origin",
};

const usedKey = (link: LinkState) => `sign-in-used:${link.n}`;

export function signInPage(o: SignInPageOptions): { app: Hono; close(): Promise<void> } {
  const now = o.now ?? Date.now;
  const http = new HttpClient({ baseUrl: o.serviceUrl, logger: o.log });
  const auth = new AuthApi(http);
  const app = new Hono();

  app.use("/sign-in", async (c, next) => {
    await next();
    for (const [k, v] of Object.entries(HEADERS)) c.res.headers.set(k, v);
  });

  /** The link's state if it may still sign in; otherwise the page saying why. */
  async function usable(c: Context, state: unknown): Promise<LinkState | Response> {
    const link = o.links.open(state);
    if (link === "invalid") {
      return c.html(refusedPage("This is not a sign-in link of this server, or it was changed."), 400);
    }
    if (link === "expired") {
      return c.html(
        refusedPage(`This sign-in link has expired (links last ${LINK_TTL_MS / 60_000} minutes).`),
        410,
      );
    }
    if ((await o.state.getValue(usedKey(link))) !== undefined) {
      return c.html(refusedPage("This sign-in link was used already; each link signs in once."), 410);
    }
    return link;
  }

  function cookieOf(c: Context): string {
    let value = getCookie(c, COOKIE);
    if (!value || !/^[A-Za-z0-9_-]{43}$/.test(value)) {
      value = randomBytes(32).toString("base64url");
      setCookie(c, COOKIE, value, {
        httpOnly: true,
        sameSite: "Strict",
        path: "/sign-in",
        secure: o.secure(),
        maxAge: LINK_TTL_MS / 1000,
      });
    }
    return value;
  }

  app.get("/sign-in", async (c) => {
    const link = await guarded(c, () => usable(c, c.req.query("state")));
    if (link instanceof Response) return link;
    const formToken = o.links.formToken(link, cookieOf(c));
    return c.html(
      passwordPage({
        state: c.req.query("state") as string,
        formToken,
        service: o.displayService,
        forWhom: link.w ?? link.sub,
        ...(o.tenant ? { tenant: o.tenant } : {}),
      }),
    );
  });

  app.post(
    "/sign-in",
    // A sign-in form is a few hundred bytes: anything much larger is not one, and is not read.
    bodyLimit({
      maxSize: MAX_FORM_BYTES,
      onError: (c) => c.html(refusedPage("This form is far larger than a sign-in form."), 413),
    }),
    async (c) =>
      guarded(c, async () => {
        if (c.req.header("sec-fetch-site") === "cross-site") {
          return c.html(refusedPage("This form was sent from another site."), 403);
        }
        const form = await c.req.parseBody();
        const field = (name: string) => (typeof form[name] === "string" ? (form[name] as string) : "");
        const state = field("state");
        const link = await usable(c, state);
        if (link instanceof Response) return link;
        const cookie = getCookie(c, COOKIE) ?? "";
        if (!cookie || !sameText(field("form_token"), o.links.formToken(link, cookie))) {
          return c.html(
            refusedPage(
              "This form does not belong to the page this server showed you (cookies must be on for it).",
            ),
            403,
          );
        }
        const tries = await o.state.hit(`sign-in-tries:${link.n}`, LINK_TTL_MS);
        if (tries.count > MAX_TRIES) {
          return c.html(refusedPage("Too many attempts with this sign-in link."), 429);
        }
        const fields = {
          state,
          formToken: field("form_token"),
          service: o.displayService,
          forWhom: link.w ?? link.sub,
        };
        const signal = AbortSignal.timeout(30_000);

        if (field("step") === "code") {
          const step = o.links.openStep(field("challenge"), link);
          if (!step) return c.html(refusedPage("This step does not belong to this sign-in link."), 400);
          const code = field("code").trim();
          const codeForm = (error: string) =>
            c.html(codePage({ ...fields, step: field("challenge"), kind: step.c, user: step.u, error }), 400);
          if (!code) return codeForm("Enter the code.");
          const sentAt = now();
          let outcome: LoginOutcome;
          try {
            outcome =
              step.c === "two-factor"
                ? await auth.completeTwoFactor({
                    username: step.u,
                    continuation: new TwoFactorOutcome(step.ct ?? "", step.t),
                    code,
                    ...(step.t ? { tenant: step.t } : {}),
                    signal,
                  })
                : await auth.completeChallenge(code, { signal });
          } catch (err) {
            if (isServiceError(err) && (err.status === 401 || err.status === 403 || err.status === 400)) {
              return codeForm("The repository did not accept that code; check it and try again.");
            }
            throw err;
          }
          return settle(c, link, outcome, sentAt, step.u, step.t, fields);
        }

        const username = field("username").trim();
        const password = field("password");
        const tenant = field("tenant").trim() || undefined;
        const again = (error: string, status: 400 | 401 = 400) =>
          c.html(passwordPage({ ...fields, username, ...(tenant ? { tenant } : {}), error }), status);
        if (!username || !password) return again("Enter your user name and password.");
        const sentAt = now();
        let outcome: LoginOutcome;
        try {
          outcome = await auth.login({ username, password, ...(tenant ? { tenant } : {}), signal });
        } catch (err) {
          if (isServiceError(err) && (err.status === 401 || err.status === 403)) {
            return again("The repository refused that user name, password or tenant.", 401);
          }
          throw err;
        }
        return settle(c, link, outcome, sentAt, username, tenant, fields);
      }),
  );

  /** What the service answered: signed in, or the next step it asks for. */
  async function settle(
    c: Context,
    link: LinkState,
    outcome: LoginOutcome,
    sentAt: number,
    username: string,
    tenant: string | undefined,
    fields: FormFields,
  ): Promise<Response> {
    if (outcome.kind === "two-factor" || outcome.kind === "email-challenge") {
      const t = outcome.tenant ?? tenant;
      const step = o.links.sealStep({
        ...link,
        c: outcome.kind,
        u: username,
        ...(t ? { t } : {}),
        ...(outcome.kind === "two-factor" ? { ct: outcome.continuationToken() } : {}),
      });
      return c.html(codePage({ ...fields, step, kind: outcome.kind, user: username }));
    }
    if (outcome.kind === "two-factor-setup") {
      return c.html(
        refusedPage(
          `Two-factor authentication is required for ${username} but not set up yet: set it up in the repository's web interface, then ask your assistant again.`,
        ),
        403,
      );
    }
    const grant = outcome.grant;
    if (grant.user && grant.user.toLowerCase() !== username.toLowerCase()) {
      return c.html(refusedPage(`The code belongs to another user than ${username}.`), 403);
    }
    // Once, on every instance: a second submission of this link (another tab, a replay) signs in nobody.
    const ttl = Math.max(1000, link.e - now() + 60_000);
    if (!(await o.state.spendOnce(`sign-in:${link.n}`, ttl))) {
      return c.html(refusedPage("This sign-in link was used already; each link signs in once."), 410);
    }
    await o.state.setValue(usedKey(link), "1", ttl);
    await o.people.signedIn(link.sub, grant, sentAt);
    o.log.info({ user: grant.user || username }, "a person signed in on the sign-in page");
    const who = grant.fullName ? `${grant.fullName} (${grant.user || username})` : grant.user || username;
    return c.html(donePage(who, o.displayService));
  }

  /** Anything unexpected (the service or the shared state unreachable): a page that says so, no details. */
  async function guarded<T>(c: Context, run: () => Promise<T | Response>): Promise<T | Response> {
    try {
      return await run();
    } catch (err) {
      o.log.warn(
        { err: isServiceError(err) ? err.toJSON() : err instanceof Error ? err.message : String(err) },
        "sign-in page failed",
      );
      return c.html(
        refusedPage(
          isServiceError(err)
            ? "The repository could not be reached to sign you in; try again in a moment."
            : "The team server could not finish the sign-in (its shared state may be unreachable); try again in a moment.",
        ),
        503,
      );
    }
  }

  return { app, close: () => http.close() };
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
