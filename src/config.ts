import { homedir } from "node:os";
import { delimiter, isAbsolute, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { z } from "zod";
import { LOG_LEVELS, type LogLevel } from "./log.js";

/**
 * The MCP server's configuration: environment variables with matching flags, validated by one zod schema.
 * The README's configuration table lists exactly these (keep them in step).
 */

/**
 * What each variable must be, in plain words. Every configuration error says this (zod's own wording, such as
 * "Invalid input: expected number, received NaN", never reaches a person); the README's table agrees.
 */
export const MUST_BE: Record<string, string> = {
  PRESERVATION_URL: "must be an http(s) URL such as https://eu.preservica.com",
  PRESERVATION_USERNAME: "must be a user name of the repository service",
  PRESERVATION_PASSWORD: "must be the password of PRESERVATION_USERNAME",
  PRESERVATION_TENANT: "must be a tenant name",
  PRESERVATION_READ_ONLY: "must be true or false (also 1/0, yes/no, on/off)",
  PRESERVATION_TOOLSETS: "must be a comma list of toolset names, default or all",
  PRESERVATION_LOG_LEVEL: `must be one of ${LOG_LEVELS.join(", ")}`,
  PRESERVATION_DATA_DIR: "must be a folder for the embedded service's data",
  PRESERVATION_DOWNLOAD_DIR: "must be an absolute path to a folder for downloaded files",
  PRESERVATION_MAX_SESSION_MINS: "must be a whole number of minutes, at least 1",
  PRESERVATION_TOOL_TIMEOUT_SECS: "must be a number of seconds between 1 and 600",
  PRESERVATION_HTTP_TOKEN: "must be at least 16 characters",
  PRESERVATION_HTTP_RATE:
    "must be requests per client as a whole number per second, minute or hour (such as 600/min), or off",
  PRESERVATION_INGEST_ROOTS: `must be absolute folder paths separated by "${delimiter}"`,
  PRESERVATION_CONFIRM_KEY: "must be at least 32 characters (e.g. `openssl rand -hex 32`)",
  PRESERVATION_AUDIT_LOG: "must be an absolute path to a file (JSON lines are appended)",
  PRESERVATION_STATE_URL:
    "must be a redis:// or rediss:// URL of a Valkey or Redis server, such as redis://state.internal:6379/0",
  PRESERVATION_OAUTH_ISSUER:
    "must be the authorization server's issuer URL, https (http only on loopback), such as https://login.example.org",
  PRESERVATION_OAUTH_JWKS_URL:
    "must be the URL of the authorization server's signing keys (JWKS), https (http only on loopback)",
  PRESERVATION_OAUTH_AUDIENCE:
    "must be the URL clients use to reach this server's /mcp endpoint, such as https://mcp.example.org/mcp",
  PRESERVATION_IDENTITY:
    "must be service (one repository account for the server) or person (each caller signs in)",
  PRESERVATION_WEBHOOK_URL:
    "must be the http(s) URL at which the repository service reaches this server's /webhook endpoint, such as https://mcp.example.org/webhook",
};

/** https anywhere; plain http only to this machine (a key or issuer fetched in the clear could be forged). */
function httpsOrLoopback(text: string): boolean {
  try {
    const u = new URL(text);
    if (u.username || u.password) return false;
    return u.protocol === "https:" || (u.protocol === "http:" && isLoopback(u.hostname));
  } catch {
    return false;
  }
}

/** A URL variable that must parse and pass `check`; the message never repeats the value (it may hold a password). */
const urlWhere = (name: string, check: (url: URL) => boolean) =>
  z
    .string()
    .trim()
    .refine((text) => {
      try {
        return check(new URL(text));
      } catch {
        return false;
      }
    }, MUST_BE[name]);

const oauthUrl = (name: string) => z.string().trim().refine(httpsOrLoopback, MUST_BE[name]);

/** A per-client request rate: `requests` per `perMs` milliseconds, bursts of up to `requests` allowed. */
export interface HttpRate {
  requests: number;
  perMs: number;
}

/**
 * 600 a minute for each client: an assistant working hard makes a few calls a second, in bursts, so a person
 * never meets it; a runaway script looping on a tool does, after a minute's worth of calls.
 */
export const DEFAULT_HTTP_RATE = "600/min";

const RATE_UNITS: Record<string, number> = { s: 1000, sec: 1000, min: 60_000, h: 3_600_000, hour: 3_600_000 };

/** `600/min`, `20/s`, `5000/h` or `off` (null); undefined when it is none of those. */
export function parseRate(text: string): HttpRate | null | undefined {
  const s = text.trim().toLowerCase();
  if (s === "off") return null;
  const m = s.match(/^(\d+)\s*\/\s*([a-z]+)$/);
  const perMs = m?.[2] ? RATE_UNITS[m[2]] : undefined;
  const requests = Number(m?.[1]);
  if (!perMs || !Number.isSafeInteger(requests) || requests < 1) return undefined;
  return { requests, perMs };
}

/** The spellings every boolean variable accepts, whatever the variable (any case, surrounding spaces ignored). */
export const TRUE_WORDS = ["true", "1", "yes", "on"] as const;
export const FALSE_WORDS = ["false", "0", "no", "off"] as const;

/** Parses a boolean variable's text; undefined when it is none of the accepted spellings. */
export function parseBoolean(text: string): boolean | undefined {
  const s = text.trim().toLowerCase();
  if ((TRUE_WORDS as readonly string[]).includes(s)) return true;
  if ((FALSE_WORDS as readonly string[]).includes(s)) return false;
  return undefined;
}

const booleanText = (name: string) =>
  z
    .string()
    .refine((s) => parseBoolean(s) !== undefined, MUST_BE[name])
    .transform((s) => parseBoolean(s) === true);

/** A number variable: every failure (not a number, out of range) says the same plain sentence. */
const numberText = (name: string, check: (n: number) => boolean) =>
  z
    .string()
    .refine((s) => s.trim() !== "" && Number.isFinite(Number(s)) && check(Number(s)), MUST_BE[name])
    .transform(Number);

export const ConfigSchema = z
  .object({
    PRESERVATION_URL: z
      .url({ protocol: /^https?$/, message: MUST_BE.PRESERVATION_URL })
      .refine(
        (u) => !/^[a-z]+:\/\/[^/?#]*@/i.test(u),
        "must not contain a user name or password: use PRESERVATION_USERNAME and PRESERVATION_PASSWORD",
      )
      .transform((u) => u.replace(/\/+$/, ""))
      .optional(),
    PRESERVATION_USERNAME: z.string().min(1).optional(),
    PRESERVATION_PASSWORD: z.string().min(1).optional(),
    PRESERVATION_TENANT: z.string().min(1).optional(),
    PRESERVATION_READ_ONLY: booleanText("PRESERVATION_READ_ONLY").default(false),
    PRESERVATION_TOOLSETS: z
      .string()
      .default("default")
      .transform((s) =>
        s
          .split(",")
          .map((t) => t.trim().toLowerCase())
          .filter(Boolean),
      ),
    PRESERVATION_LOG_LEVEL: z
      .string()
      .transform((s) => s.trim().toLowerCase())
      .pipe(z.enum(LOG_LEVELS, { message: MUST_BE.PRESERVATION_LOG_LEVEL }))
      .default("info"),
    PRESERVATION_DATA_DIR: z.string().min(1).optional(),
    PRESERVATION_DOWNLOAD_DIR: z
      .string()
      .refine((p) => isAbsolute(p), MUST_BE.PRESERVATION_DOWNLOAD_DIR)
      .optional(),
    PRESERVATION_MAX_SESSION_MINS: numberText(
      "PRESERVATION_MAX_SESSION_MINS",
      (n) => Number.isInteger(n) && n >= 1,
    ).default(480),
    PRESERVATION_TOOL_TIMEOUT_SECS: numberText(
      "PRESERVATION_TOOL_TIMEOUT_SECS",
      (n) => n >= 1 && n <= 600,
    ).default(45),
    PRESERVATION_HTTP_TOKEN: z.string().min(16, MUST_BE.PRESERVATION_HTTP_TOKEN).optional(),
    PRESERVATION_HTTP_RATE: z
      .string()
      .default(DEFAULT_HTTP_RATE)
      .transform((s, ctx) => {
        const rate = parseRate(s);
        if (rate === undefined) {
          ctx.addIssue({ code: "custom", message: MUST_BE.PRESERVATION_HTTP_RATE });
          return z.NEVER;
        }
        return rate;
      }),
    PRESERVATION_INGEST_ROOTS: z
      .string()
      .transform((s) =>
        s
          .split(delimiter)
          .map((p) => p.trim())
          .filter(Boolean),
      )
      .refine((roots) => roots.every((p) => isAbsolute(p)), MUST_BE.PRESERVATION_INGEST_ROOTS)
      .optional(),
    PRESERVATION_CONFIRM_KEY: z.string().min(32, MUST_BE.PRESERVATION_CONFIRM_KEY).optional(),
    PRESERVATION_AUDIT_LOG: z
      .string()
      .refine((p) => isAbsolute(p), MUST_BE.PRESERVATION_AUDIT_LOG)
      .optional(),
    PRESERVATION_STATE_URL: urlWhere(
      "PRESERVATION_STATE_URL",
      (url) => (url.protocol === "redis:" || url.protocol === "rediss:") && url.hostname !== "",
    ).optional(),
    PRESERVATION_IDENTITY: z.enum(["service", "person"], MUST_BE.PRESERVATION_IDENTITY).default("service"),
    PRESERVATION_OAUTH_ISSUER: oauthUrl("PRESERVATION_OAUTH_ISSUER").optional(),
    PRESERVATION_OAUTH_JWKS_URL: oauthUrl("PRESERVATION_OAUTH_JWKS_URL").optional(),
    PRESERVATION_WEBHOOK_URL: z
      .string()
      .trim()
      .refine((u) => {
        try {
          const url = new URL(u);
          return (
            (url.protocol === "https:" || url.protocol === "http:") &&
            !url.hash &&
            !url.username &&
            !url.password
          );
        } catch {
          return false;
        }
      }, MUST_BE.PRESERVATION_WEBHOOK_URL)
      .optional(),
    PRESERVATION_OAUTH_AUDIENCE: z
      .string()
      .trim()
      .refine((u) => {
        try {
          const url = new URL(u);
          return (url.protocol === "https:" || url.protocol === "http:") && !url.hash;
        } catch {
          return false;
        }
      }, MUST_BE.PRESERVATION_OAUTH_AUDIENCE)
      .optional(),
  })
  .superRefine((c, ctx) => {
    // A person mode server has no account of its own: each caller signs in as themselves.
    if (
      c.PRESERVATION_IDENTITY === "service" &&
      c.PRESERVATION_URL &&
      (!c.PRESERVATION_USERNAME || !c.PRESERVATION_PASSWORD)
    ) {
      ctx.addIssue({
        code: "custom",
        path: [c.PRESERVATION_USERNAME ? "PRESERVATION_PASSWORD" : "PRESERVATION_USERNAME"],
        message: "is required when PRESERVATION_URL is set",
      });
    }
    // The issuer names who signs tokens; the keys are how to check them: one without the other is a mistake.
    if (c.PRESERVATION_OAUTH_ISSUER && !c.PRESERVATION_OAUTH_JWKS_URL) {
      ctx.addIssue({
        code: "custom",
        path: ["PRESERVATION_OAUTH_JWKS_URL"],
        message:
          "is required when PRESERVATION_OAUTH_ISSUER is set: the URL of the issuer's signing keys (its jwks_uri)",
      });
    }
    for (const key of ["PRESERVATION_OAUTH_JWKS_URL", "PRESERVATION_OAUTH_AUDIENCE"] as const) {
      if (c[key] && !c.PRESERVATION_OAUTH_ISSUER) {
        ctx.addIssue({
          code: "custom",
          path: [key],
          message: "needs PRESERVATION_OAUTH_ISSUER too: the authorization server whose tokens are accepted",
        });
      }
    }
  });

export interface Config {
  /** undefined = the embedded repository service. */
  url?: string;
  username?: string;
  password?: string;
  tenant?: string;
  readOnly: boolean;
  toolsets: string[];
  logLevel: LogLevel;
  dataDir: string;
  /** Where `download_file` may save files; unset = no local downloads (the tool is not offered). */
  downloadDir?: string;
  maxSessionMins: number;
  /** The overall deadline of one tool call, in seconds (the tool-call boundary, server/call-boundary.ts, enforces it). */
  toolTimeoutSecs: number;
  http: {
    enabled: boolean;
    host: string;
    port: number;
    token?: string;
    /** Requests each client may make over HTTP (a token bucket per client); null = no limit. */
    rate: HttpRate | null;
    /** OAuth 2.1 client authentication (JWT access tokens from this issuer); unset = none. */
    oauth?: { issuer: string; jwksUrl: string; audience?: string };
    /**
     * Where the repository service reaches this server's webhook receiver (/webhook); set = live resources
     * (resource subscriptions fed by the service's webhooks). HTTP mode only.
     */
    webhookUrl?: string;
  };
  /** Local folders the ingest tools may read from; empty = no local ingest (the tools are not offered). */
  ingestRoots: string[];
  /**
   * Seals confirmation tokens and requests for the person's answer: any server with the same key accepts
   * them. Unset = a random key per process (tokens die with the process).
   */
  confirmKey?: string;
  /** Where every write and refused write is appended as one JSON line; unset = no audit file. */
  auditLog?: string;
  /**
   * Valkey/Redis holding what several instances must share (spent tokens, leases, rate budgets, the audit
   * trail); unset = in-process. May hold a password: never logged or shown.
   */
  stateUrl?: string;
  /**
   * What the person called each setting they gave (`--toolsets`, `PRESERVATION_TOOLSETS`, "the folders after
   * --"), so a mistake found after parsing (an unknown toolset, a missing folder) names what was typed.
   */
  names: Readonly<Record<string, string>>;
  /**
   * Who the repository sees: `service` (the configured account, for every caller) or `person` (HTTP with
   * OAuth: each caller signs in as themselves on this server's sign-in page; see src/identity/).
   */
  identity: "service" | "person";
}

export class ConfigError extends Error {
  // The CLI recognises it by name, so it need not load this module (and zod) for other commands.
  override readonly name = "ConfigError";
}

/** Flags that mirror the variables (`--read-only` ↔ PRESERVATION_READ_ONLY). Passwords only by environment. */
const FLAG_TO_ENV: Record<string, string> = {
  url: "PRESERVATION_URL",
  username: "PRESERVATION_USERNAME",
  tenant: "PRESERVATION_TENANT",
  "read-only": "PRESERVATION_READ_ONLY",
  toolsets: "PRESERVATION_TOOLSETS",
  "log-level": "PRESERVATION_LOG_LEVEL",
  "data-dir": "PRESERVATION_DATA_DIR",
  "download-dir": "PRESERVATION_DOWNLOAD_DIR",
  "tool-timeout-secs": "PRESERVATION_TOOL_TIMEOUT_SECS",
  "ingest-roots": "PRESERVATION_INGEST_ROOTS",
  "audit-log": "PRESERVATION_AUDIT_LOG",
  "webhook-url": "PRESERVATION_WEBHOOK_URL",
  "state-url": "PRESERVATION_STATE_URL",
  identity: "PRESERVATION_IDENTITY",
};

/** Where the embedded default keeps its data when PRESERVATION_DATA_DIR is unset: $XDG_DATA_HOME/preservation-mcp, else ~/.local/share/preservation-mcp. */
export function defaultDataDir(env: NodeJS.ProcessEnv): string {
  if (env.XDG_DATA_HOME) return join(env.XDG_DATA_HOME, "preservation-mcp");
  return join(homedir(), ".local", "share", "preservation-mcp");
}

/** The MCP server's flags (`--help` lists each of them; a test keeps the two in step). */
export const CONFIG_OPTIONS = {
  url: { type: "string" },
  username: { type: "string" },
  tenant: { type: "string" },
  "read-only": { type: "boolean" },
  toolsets: { type: "string" },
  "log-level": { type: "string" },
  "data-dir": { type: "string" },
  "download-dir": { type: "string" },
  "tool-timeout-secs": { type: "string" },
  "ingest-roots": { type: "string" },
  "audit-log": { type: "string" },
  "webhook-url": { type: "string" },
  "state-url": { type: "string" },
  identity: { type: "string" },
  http: { type: "boolean" },
  host: { type: "string", default: "127.0.0.1" },
  port: { type: "string", default: "3000" },
} as const;

/**
 * A password given as a flag is visible to every user of the machine (the process list) and stays in shell
 * history: refused before anything else, and never repeated in the message.
 */
function refusePasswordFlag(argv: string[]): void {
  if (argv.some((a) => a === "--password" || a.startsWith("--password="))) {
    throw new ConfigError(
      "--password is not accepted: a password on the command line is visible to other users of this machine; set the environment variable PRESERVATION_PASSWORD instead",
    );
  }
}

/** node:util parseArgs errors, in plain words. */
function parseArgsMessage(err: NodeJS.ErrnoException): string {
  const option = err.message.match(/'(-[^' ]+)/)?.[1];
  switch (err.code) {
    case "ERR_PARSE_ARGS_UNKNOWN_OPTION":
      return `unknown option ${option ?? ""}; see preservation-mcp --help`.replace("  ", " ");
    case "ERR_PARSE_ARGS_INVALID_OPTION_VALUE":
      return /argument missing/.test(err.message)
        ? `${option} needs a value; see preservation-mcp --help`
        : `${option} takes no value (it is on when present); see preservation-mcp --help`;
    case "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL":
      return `unexpected argument ${err.message.match(/'([^']*)'/)?.[1] ?? ""}; see preservation-mcp --help`;
    default:
      return err.message;
  }
}

export function loadConfig(argv: string[], env: NodeJS.ProcessEnv = process.env): Config {
  refusePasswordFlag(argv);
  // Folders after `--` are ingest folders too: an MCP Bundle host expands a list of folders into separate
  // arguments, one per folder, with no flag before each (see manifest.json).
  const dashDash = argv.indexOf("--");
  const options = dashDash === -1 ? argv : argv.slice(0, dashDash);
  const extraRoots = dashDash === -1 ? [] : argv.slice(dashDash + 1).filter(Boolean);
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({ args: options, options: CONFIG_OPTIONS, strict: true }));
  } catch (err) {
    throw new ConfigError(parseArgsMessage(err as NodeJS.ErrnoException));
  }
  const merged: Record<string, string | undefined> = {};
  /** Where each value came from, so an error names what the person actually typed. */
  const source: Record<string, string> = {};
  for (const key of Object.keys(ConfigSchema.shape ?? {})) {
    merged[key] = env[key];
    source[key] = key;
  }
  for (const [flag, key] of Object.entries(FLAG_TO_ENV)) {
    const v = values[flag];
    if (v !== undefined) {
      merged[key] = String(v);
      source[key] = `--${flag}`;
    }
  }
  if (extraRoots.length > 0) {
    merged.PRESERVATION_INGEST_ROOTS = [merged.PRESERVATION_INGEST_ROOTS, ...extraRoots]
      .filter(Boolean)
      .join(delimiter);
    source.PRESERVATION_INGEST_ROOTS = "the folders after --";
  }
  // Empty variables are treated as unset (a common shell and MCP-client config habit).
  for (const k of Object.keys(merged)) if (merged[k] === "") merged[k] = undefined;

  const parsed = ConfigSchema.safeParse(merged);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const key = String(issue?.path[0] ?? "");
    throw new ConfigError(configErrorMessage(source[key] ?? (key || "configuration"), key, issue?.message));
  }
  const c = parsed.data;
  const port = Number(values.port);
  if (!/^\d+$/.test(String(values.port)) || port > 65535) {
    throw new ConfigError(`--port must be 0-65535, got "${values.port}"`);
  }
  const host = String(values.host);
  const oauth =
    c.PRESERVATION_OAUTH_ISSUER && c.PRESERVATION_OAUTH_JWKS_URL
      ? {
          issuer: c.PRESERVATION_OAUTH_ISSUER,
          jwksUrl: c.PRESERVATION_OAUTH_JWKS_URL,
          ...(c.PRESERVATION_OAUTH_AUDIENCE ? { audience: c.PRESERVATION_OAUTH_AUDIENCE } : {}),
        }
      : undefined;
  const http = {
    enabled: values.http === true,
    host,
    port,
    token: c.PRESERVATION_HTTP_TOKEN,
    rate: c.PRESERVATION_HTTP_RATE,
    ...(oauth ? { oauth } : {}),
    ...(c.PRESERVATION_WEBHOOK_URL ? { webhookUrl: c.PRESERVATION_WEBHOOK_URL } : {}),
  };
  // Updates reach a client on an HTTP session or listen stream; over stdio there is no receiver to call.
  if (http.webhookUrl && !http.enabled) {
    throw new ConfigError(
      `${source.PRESERVATION_WEBHOOK_URL} needs --http: live resources are served over Streamable HTTP, where the repository service can call this server's /webhook endpoint`,
    );
  }
  if (http.enabled && !isLoopback(host) && !http.token && !oauth) {
    throw new ConfigError(
      `PRESERVATION_HTTP_TOKEN or PRESERVATION_OAUTH_ISSUER is required when --host is ${host} (not loopback): clients must authenticate with a bearer token or an OAuth access token`,
    );
  }
  // Bound to every address, the server's own URL names none a client uses: tokens' audience must be given.
  if (http.enabled && oauth && !oauth.audience && isWildcard(host)) {
    throw new ConfigError(
      `PRESERVATION_OAUTH_AUDIENCE is required when --host is ${host}: set it to the URL clients use to reach /mcp (such as https://mcp.example.org/mcp), the audience their access tokens are issued for`,
    );
  }
  if (c.PRESERVATION_IDENTITY === "person") personModeAllowed(http, source.PRESERVATION_IDENTITY ?? "");
  return {
    url: c.PRESERVATION_URL,
    username: c.PRESERVATION_USERNAME,
    password: c.PRESERVATION_PASSWORD,
    tenant: c.PRESERVATION_TENANT,
    readOnly: c.PRESERVATION_READ_ONLY,
    toolsets: c.PRESERVATION_TOOLSETS,
    logLevel: c.PRESERVATION_LOG_LEVEL,
    dataDir: c.PRESERVATION_DATA_DIR ?? defaultDataDir(env),
    ...(c.PRESERVATION_DOWNLOAD_DIR ? { downloadDir: resolve(c.PRESERVATION_DOWNLOAD_DIR) } : {}),
    maxSessionMins: c.PRESERVATION_MAX_SESSION_MINS,
    toolTimeoutSecs: c.PRESERVATION_TOOL_TIMEOUT_SECS,
    http,
    ingestRoots: (c.PRESERVATION_INGEST_ROOTS ?? []).map((p) => resolve(p)),
    ...(c.PRESERVATION_CONFIRM_KEY ? { confirmKey: c.PRESERVATION_CONFIRM_KEY } : {}),
    ...(c.PRESERVATION_AUDIT_LOG ? { auditLog: resolve(c.PRESERVATION_AUDIT_LOG) } : {}),
    ...(c.PRESERVATION_STATE_URL ? { stateUrl: c.PRESERVATION_STATE_URL } : {}),
    names: source,
    identity: c.PRESERVATION_IDENTITY,
  };
}

/**
 * Person mode needs a caller who is someone: an OAuth subject, over HTTP. Over stdio (and with a shared
 * static token) there is only the configured account; live resources subscribe with that account too.
 */
function personModeAllowed(http: Config["http"], name: string): void {
  const what = `${name} person`;
  if (!http.enabled || !http.oauth) {
    throw new ConfigError(
      `${what} needs --http with OAuth (PRESERVATION_OAUTH_ISSUER and PRESERVATION_OAUTH_JWKS_URL): each caller is an OAuth subject who signs in to the repository as themselves; without them use identity service`,
    );
  }
  if (http.token) {
    throw new ConfigError(
      `${what} cannot be used with PRESERVATION_HTTP_TOKEN: a shared static token names no person; remove it and let clients use OAuth`,
    );
  }
  if (http.webhookUrl) {
    throw new ConfigError(
      `${what} cannot be used with PRESERVATION_WEBHOOK_URL yet: live resources subscribe with the server's own account, which person mode does not have`,
    );
  }
}

/**
 * One sentence: what is wrong, in plain words, naming the variable or flag. A zod default message (its
 * wording is for programmers) is replaced by what the variable must be. The value is not repeated: it may
 * be a secret, or a URL carrying one.
 */
export function configErrorMessage(name: string, key: string, message: string | undefined): string {
  const ours = message && !/^(Invalid|Too (small|big)|Expected|Unrecognized)\b/i.test(message);
  return `${name} ${(ours ? message : MUST_BE[key]) ?? "is not valid"}`;
}

/**
 * Plain http to another machine sends the password (and every token after it) across the network unencrypted:
 * allowed, since a lab network may have no TLS, but never silently. The warning, or undefined.
 */
export function passwordInClearWarning(config: Pick<Config, "url" | "names">): string | undefined {
  if (!config.url) return undefined;
  const { protocol, hostname } = new URL(config.url);
  if (protocol !== "http:" || isLoopback(hostname) || /^127\./.test(hostname)) return undefined;
  return `${config.names.PRESERVATION_URL ?? "PRESERVATION_URL"} is plain http:// to ${hostname}, another machine: the password and every access token cross the network unencrypted; use https:// unless the network itself is trusted`;
}

function isWildcard(host: string): boolean {
  return host === "0.0.0.0" || host === "::" || host === "[::]";
}

export function isLoopback(host: string): boolean {
  return host === "127.0.0.1" || host === "localhost" || host === "::1" || host === "[::1]";
}
