import type { AuthInfo } from "@modelcontextprotocol/server";
import type { Hono } from "hono";
import type { Logger } from "pino";
import type { Config } from "../config.js";
import { displayUrl, Session } from "../session/session.js";
import type { SharedState } from "../state/types.js";
import { PersonMode } from "./gate.js";
import { SignInLinks } from "./links.js";
import { PersonSessions } from "./people.js";
import { signInPage } from "./sign-in-page.js";

/**
 * What a person mode team server adds to the runtime: the people's sessions, the sign-in links and the page,
 * and a session for nobody (the server's own, which never signs in: the banner and start-up use it).
 */
export interface PersonRuntime {
  mode: PersonMode;
  /** The sign-in page, mounted beside /mcp. */
  pages: Hono;
  /** A session that is nobody's: the process has no repository account of its own in person mode. */
  nobody: Session;
  /** Set once the server listens: its public URL (the OAuth audience, else the bound /mcp URL). */
  setPublicUrl(url: string): void;
  close(): Promise<void>;
}

export function preparePersonMode(
  config: Config,
  url: string,
  state: SharedState,
  log: Logger,
): PersonRuntime {
  const people = new PersonSessions({
    state,
    confirmKey: config.confirmKey,
    url,
    maxSessionLifetimeMins: config.maxSessionMins,
    logger: log,
  });
  const links = new SignInLinks(config.confirmKey);
  let origin = config.http.oauth?.audience ? new URL(config.http.oauth.audience).origin : "";
  const page = signInPage({
    links,
    people,
    state,
    serviceUrl: url,
    displayService: displayUrl(url),
    ...(config.tenant ? { tenant: config.tenant } : {}),
    secure: () => origin.startsWith("https:"),
    log,
  });
  const nobody = new Session({
    url,
    username: "",
    keepAlive: false,
    logger: log,
    person: { load: async () => undefined, save: async () => {} },
  });
  return {
    mode: new PersonMode(people, links, () => origin),
    pages: page.app,
    nobody,
    setPublicUrl(publicUrl) {
      if (!config.http.oauth?.audience) origin = new URL(publicUrl).origin;
    },
    async close() {
      await Promise.allSettled([people.close(), page.close(), nobody.close()]);
    },
  };
}

/** The caller a verified access token names: its subject, else its client. */
/** The caller as a person recognises them (the token's preferred_username, email or name), if it says. */
export function labelOf(auth: AuthInfo | undefined): string | undefined {
  const label = auth?.extra?.label;
  return typeof label === "string" && label ? label : undefined;
}

export function subjectOf(auth: AuthInfo | undefined): string | undefined {
  const sub = auth?.extra?.sub;
  if (typeof sub === "string" && sub) return sub;
  return auth?.clientId || undefined;
}
