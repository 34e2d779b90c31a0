import { statSync } from "node:fs";
import { join } from "node:path";
import type { AuthInfo, McpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { isServiceError } from "../api/errors.js";
import { type Config, ConfigError, loadConfig, passwordInClearWarning } from "../config.js";
import type { EmbeddedTarget } from "../embedded.js";
import { audienceFrom, isToolVisible, resolveToolsets } from "../guards/visibility.js";
import type { Readiness } from "../http/serve.js";
import type { PersonRuntime } from "../identity/runtime.js";
import { createLogger, type Logger } from "../log.js";
import {
  buildServer,
  personDeps,
  readOnlyDeps,
  type ServerDeps,
  type ServerRuntime,
  serverRuntime,
  serviceClientOf,
  type Watching,
} from "../server/server.js";
import { type ChallengeKind, ChallengeRequired, Session, SignInFailed } from "../session/session.js";
import { openSharedState } from "../state/index.js";
import { ALL_TOOLS } from "../tools/index.js";
import { commandHere } from "./self-command.js";

/**
 * Everything the MCP server needs before it serves: configuration, logger, the target service (the
 * embedded one when no URL is configured), and a signed-in session whose roles decide the tool list.
 */
export interface Runtime {
  config: Config;
  /** What every server instance shares (session, audience, confirmation guard, audit log, shared state), made here once. */
  deps: ServerRuntime;
  embedded?: EmbeddedTarget;
  /** Identity "person": each caller's own repository session, and the sign-in page. */
  person?: PersonRuntime;
  close(): Promise<void>;
}

export async function prepareRuntime(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<Runtime> {
  const config = loadConfig(argv, env);
  // Toolset names are known only to the tool registry; an unknown one is still a configuration error,
  // reported (exit code 2) before anything starts, not after the embedded service is up and listening.
  try {
    resolveToolsets(config.toolsets, config.names.PRESERVATION_TOOLSETS);
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
  checkIngestRoots(config);
  const log = createLogger({ level: config.logLevel });
  const inClear = passwordInClearWarning(config);
  if (inClear) log.warn(inClear);
  // The embedded service is loaded only when it is used: against a remote service its code stays out of memory.
  const embedded = config.url ? undefined : await (await import("../embedded.js")).startEmbedded(config, log);
  if (config.identity === "person") {
    // People's sessions are kept (sealed) in the shared state, so every instance serves them.
    const state = await openSharedState(config.stateUrl, log);
    const person = (await import("../identity/runtime.js")).preparePersonMode(
      config,
      embedded?.url ?? (config.url as string),
      state,
      log,
    );
    const deps = serverRuntime({
      config,
      session: person.nobody,
      log,
      audience: audienceFrom(config, undefined),
      state,
    });
    return {
      config,
      deps,
      embedded,
      person,
      async close() {
        await person.close();
        await state.close();
        await embedded?.repository.close();
      },
    };
  }
  const session = new Session({
    url: embedded?.url ?? (config.url as string),
    username: embedded?.username ?? (config.username as string),
    password: embedded?.password ?? (config.password as string),
    tenant: config.tenant,
    maxSessionLifetimeMins: config.maxSessionMins,
    logger: log,
  });
  let roles: string[] | undefined;
  try {
    // Bounded like a tool call: a host that swallows packets must not hold the client's start-up for long.
    const signal = AbortSignal.timeout(config.toolTimeoutSecs * 1000);
    await session.login(signal);
    roles = (await session.whoAmI(signal)).roles;
  } catch (err) {
    if (err instanceof ChallengeRequired) {
      // Serve anyway: `complete_sign_in` finishes the challenge; role-gated tools stay hidden until then.
      // The embedded service "mails" its challenge codes into a folder the person can open.
      const where =
        embedded && err.kind === "email-challenge"
          ? ` The embedded service's mail is in ${join(config.dataDir, "outbox")}.`
          : "";
      log.warn({ kind: err.kind }, `sign-in needs a person: ${err.prompt}${where}`);
    } else if (err instanceof SignInFailed || isServiceError(err)) {
      // Serve anyway: a client shows a server that exits only as "connection closed". Every tool call (and
      // `whoami`) answers with this reason instead and tries to sign in again, so fixing the network needs
      // no restart. Role-gated tools stay hidden until a sign-in succeeds.
      // One line, no stack: the message says what is wrong and what to do (details at debug level).
      log.warn(
        err instanceof SignInFailed ? { problem: err.problem } : {},
        err instanceof SignInFailed ? err.message : `sign-in failed: ${err.message}`,
      );
    } else {
      await session.close();
      await embedded?.repository.close();
      throw err;
    }
  }
  // Never fails: a store that cannot be reached yet is retried in the background (writes refused meanwhile).
  const state = await openSharedState(config.stateUrl, log);
  const deps = serverRuntime({ config, session, log, audience: audienceFrom(config, roles), state });
  return {
    config,
    deps,
    embedded,
    async close() {
      await session.close();
      await state.close();
      await embedded?.repository.close();
    },
  };
}

/** What a pending sign-in challenge waits for, in a person's words. */
const CHALLENGE_NEEDS: Record<ChallengeKind, string> = {
  "email-challenge": "the code from the e-mail the service sent",
  "two-factor": "the current code from the authenticator app",
  "two-factor-setup": "two-factor authentication to be set up first",
};

/** What is served, to whom, as whom: the facts both start-up messages give a person. */
function serving(runtime: Runtime): { tools: string[]; target: string; who: string } {
  const { deps, embedded } = runtime;
  const tools = ALL_TOOLS.filter((t) => isToolVisible(t, deps.audience)).map((t) => t.name);
  const target = embedded
    ? `the embedded demo repository at ${embedded.url} (data in ${runtime.config.dataDir})`
    : deps.session.displayUrl;
  const state = deps.session.state;
  const failure = deps.session.signInFailure;
  // Only an active session is "signed in": a pending challenge is a sign-in a person still has to finish.
  const who = runtime.person
    ? "each caller signs in as themselves (identity person: tool calls send them to this server's /sign-in page)"
    : state.kind === "active"
      ? `signed in as ${deps.session.username}`
      : state.kind === "challenge-required"
        ? `not signed in yet: the sign-in as ${deps.session.username} needs ${CHALLENGE_NEEDS[state.challenge.kind]}, given to the complete_sign_in tool`
        : failure
          ? `not signed in yet: ${failure.message}`
          : `not signed in yet as ${deps.session.username}`;
  return { tools, target, who };
}

/** What a person starting the HTTP server sees: what it serves, as whom, and where to go next. */
function banner(runtime: Runtime): string {
  const { tools, target, who } = serving(runtime);
  return [
    `serving ${tools.length} tools (${tools.join(", ")})${runtime.config.readOnly ? " in read-only mode" : ""}`,
    `repository: ${target}, ${who}`,
    ...(runtime.deps.state.kind === "redis"
      ? [
          `shared state: Valkey/Redis (PRESERVATION_STATE_URL)${runtime.deps.state.reachable ? "" : ", not reachable yet: changes are refused until it is"}`,
        ]
      : []),
    `connect an MCP client to the URL above, or run \`${commandHere("tour")}\` to see the tools at work`,
  ].join("\n");
}

/**
 * Started by hand in a terminal, a stdio server otherwise sits silent: one human line says what it serves
 * and that it waits for an MCP client (a client's pipe is not a terminal, so clients never see it).
 */
function stdioGreeting(runtime: Runtime): string {
  const { tools, target, who } = serving(runtime);
  return `preservation-mcp: serving ${tools.length} tools for ${target}, ${who}; waiting for an MCP client on stdin/stdout (configure this command in your MCP client; --help for options, Ctrl+C to stop)\n`;
}

/** MCP over stdio through the SDK's era-agnostic entry (2026-07-28 and 2025-11-25 clients alike). */
function serveOverStdio(factory: () => McpServer, log: Logger): { close(): Promise<void> } {
  return serveStdio(factory, { onerror: (err) => log.error({ err: err.message }, "stdio transport error") });
}

/** `preservation-mcp [--http ...]`: serve MCP until the client goes away or a signal arrives. */
export async function runMcpServer(argv: string[]): Promise<void> {
  const runtime = await prepareRuntime(argv);
  const { config, deps } = runtime;
  const person = runtime.person;
  let stopServing: () => Promise<void>;
  if (config.http.enabled) {
    // Loaded only here: a stdio server has no use for the HTTP transport, OAuth or the readiness checks.
    const [{ canWrite }, { sessionReadiness, withSharedState }, { serveOverHttp }] = await Promise.all([
      import("../http/oauth/resource-server.js"),
      import("../http/readiness.js"),
      import("../http/serve.js"),
    ]);
    // Over HTTP with OAuth, a token without the write scope gets the read-only tool list.
    const scoped = (d: ServerDeps, ctx?: { authInfo?: AuthInfo; watching?: Watching }) =>
      buildServer(ctx?.authInfo && !canWrite(ctx.authInfo) ? readOnlyDeps(d) : d, ctx?.watching);
    const factory = person
      ? async (ctx?: { authInfo?: AuthInfo; watching?: Watching }) =>
          scoped(await callerDeps(deps, person, ctx?.authInfo), ctx)
      : (ctx?: { authInfo?: AuthInfo; watching?: Watching }) => scoped(deps, ctx);
    // Person mode has no account of its own to be signed in: each caller's session is theirs.
    const ownReadiness: () => Readiness = person ? () => ({ ready: true }) : sessionReadiness(deps.session);
    // A port in use must not leave the embedded service and the session running behind an exited server.
    const http = await serveOverHttp(
      factory,
      {
        ...config.http,
        readiness: withSharedState(ownReadiness, deps.state),
        state: deps.state,
        ...(person ? { pages: person.pages } : {}),
        ...(config.http.webhookUrl
          ? {
              // Loaded only when configured: most servers never use it (start-up time).
              live: new (await import("../live/live-resources.js")).LiveResources({
                webhookUrl: config.http.webhookUrl,
                api: serviceClientOf(deps.session),
                log: deps.log,
              }),
            }
          : {}),
        // Every call has its answer by the tool deadline (the error boundary enforces it): wait that long.
        drainMs: config.toolTimeoutSecs * 1000 + 1000,
      },
      deps.log,
    ).catch(async (err: unknown) => {
      await runtime.close();
      throw err;
    });
    person?.setPublicUrl(http.url);
    deps.log.info({ url: http.url }, `MCP over Streamable HTTP at ${http.url}`);
    process.stderr.write(`listening on ${http.url}\n${banner(runtime)}\n`);
    stopServing = http.close;
  } else {
    const stdio = serveOverStdio(() => buildServer(deps), deps.log);
    deps.log.info("MCP over stdio");
    if (process.stdin.isTTY) process.stderr.write(stdioGreeting(runtime));
    stopServing = stdio.close;
  }
  await new Promise<void>((resolve) => {
    let stopping = false;
    const stop = () => {
      if (stopping) return;
      stopping = true;
      stopServing()
        .catch(() => {})
        .then(() => runtime.close())
        .finally(resolve);
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
    // A stdio client that goes away closes our stdin: that is the end of the conversation.
    if (!config.http.enabled) process.stdin.once("end", stop);
    watchForOrphaning(stop);
  });
}

/**
 * Person mode: the server as the caller (the OAuth subject) sees it, with their own repository session and
 * roles; not signed in yet, the role-gated tools stay hidden and each call sends them to the sign-in page.
 */
async function callerDeps(
  deps: ServerDeps,
  person: PersonRuntime,
  auth: AuthInfo | undefined,
): Promise<ServerDeps> {
  const { labelOf, subjectOf } = await import("../identity/runtime.js");
  const subject = subjectOf(auth);
  // Config allows person mode only with OAuth and no static token, so a verified token always names someone.
  if (!subject) throw new Error("person mode: a request without an OAuth subject reached the MCP handler");
  const session = await person.mode.people.sessionFor(subject);
  const roles = await session.whoAmI(AbortSignal.timeout(deps.config.toolTimeoutSecs * 1000)).then(
    (me) => me.roles,
    () => undefined,
  );
  return personDeps(deps, session, roles, person.mode.gateFor(subject, labelOf(auth)));
}

/**
 * Started by `npm start`, this process is the child of npm's shell. npm forwards SIGTERM to that shell,
 * and a POSIX `sh` (dash) dies without passing it on, leaving the server running, orphaned, holding its
 * port. So a server npm started stops when the process that started it is gone (its parent changes).
 * `exec` in the script would avoid the shell, but breaks `npm start` on Windows.
 */
function watchForOrphaning(stop: () => void): void {
  if (!process.env.npm_lifecycle_event) return;
  const orphaned = () => process.ppid !== PARENT_AT_START;
  // npm may have been stopped while this process was still starting: then it is orphaned already.
  if (orphaned()) {
    stop();
    return;
  }
  const timer = setInterval(() => {
    if (orphaned()) {
      clearInterval(timer);
      stop();
    }
  }, 500);
  timer.unref();
}

/**
 * The parent as this process started. Read when the module loads, not once serving: npm stopped during
 * start-up (a slow first seed) would otherwise leave the adoptive parent recorded, never to change.
 */
const PARENT_AT_START = process.ppid;

/**
 * Ingest folders that do not exist (a typo, an unmounted drive) are a configuration error at start, not a
 * surprise at the first ingest, when the person who set them is no longer looking.
 */
function checkIngestRoots(config: Config): void {
  for (const root of config.ingestRoots) {
    let problem: string | undefined;
    try {
      if (!statSync(root).isDirectory()) problem = "is not a folder";
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      problem = code === "ENOENT" ? "does not exist" : `cannot be read (${code ?? "error"})`;
    }
    if (problem) {
      const shown = root.length > 200 ? `${root.slice(0, 200)}…` : root;
      throw new ConfigError(
        `${config.names.PRESERVATION_INGEST_ROOTS ?? "PRESERVATION_INGEST_ROOTS"} names "${shown}", which ${problem}; give folders that exist on this machine`,
      );
    }
  }
}
