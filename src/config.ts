import { homedir } from "node:os";
import { delimiter, isAbsolute, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { z } from "zod";
import { LOG_LEVELS, type LogLevel } from "./log.js";

/**
 * The MCP server's configuration: environment variables with matching flags, validated by one zod schema.
 * The README's configuration table lists exactly these (keep them in step).
 */

const booleanText = z
  .string()
  .trim()
  .toLowerCase()
  .refine((s) => ["true", "false", "1", "0", "yes", "no", ""].includes(s), "must be true or false")
  .transform((s) => s === "true" || s === "1" || s === "yes");

export const ConfigSchema = z
  .object({
    PRESERVATION_URL: z
      .url({ protocol: /^https?$/, message: "must be an http(s) URL such as https://eu.preservica.com" })
      .refine(
        (u) => !/^[a-z]+:\/\/[^/?#]*@/i.test(u),
        "must not contain a user name or password: use PRESERVATION_USERNAME and PRESERVATION_PASSWORD",
      )
      .transform((u) => u.replace(/\/+$/, ""))
      .optional(),
    PRESERVATION_USERNAME: z.string().min(1).optional(),
    PRESERVATION_PASSWORD: z.string().min(1).optional(),
    PRESERVATION_TENANT: z.string().min(1).optional(),
    PRESERVATION_READ_ONLY: booleanText.default(false),
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
      .enum(LOG_LEVELS, { message: `must be one of ${LOG_LEVELS.join(", ")}` })
      .default("info"),
    PRESERVATION_DATA_DIR: z.string().min(1).optional(),
    PRESERVATION_DOWNLOAD_DIR: z
      .string()
      .refine((p) => isAbsolute(p), "must be an absolute path to a folder for downloaded files")
      .optional(),
    PRESERVATION_MAX_SESSION_MINS: z.coerce.number().int().positive().default(480),
    PRESERVATION_TOOL_TIMEOUT_SECS: z.coerce
      .number({ message: "must be a number of seconds between 1 and 600" })
      .min(1, "must be a number of seconds between 1 and 600")
      .max(600, "must be a number of seconds between 1 and 600")
      .default(45),
    PRESERVATION_HTTP_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
    PRESERVATION_INGEST_ROOTS: z
      .string()
      .transform((s) =>
        s
          .split(delimiter)
          .map((p) => p.trim())
          .filter(Boolean),
      )
      .refine(
        (roots) => roots.every((p) => isAbsolute(p)),
        `must be absolute folder paths separated by "${delimiter}"`,
      )
      .optional(),
    PRESERVATION_CONFIRM_KEY: z
      .string()
      .min(32, "must be at least 32 characters (e.g. `openssl rand -hex 32`)")
      .optional(),
    PRESERVATION_AUDIT_LOG: z
      .string()
      .refine((p) => isAbsolute(p), "must be an absolute path to a file (JSON lines are appended)")
      .optional(),
  })
  .superRefine((c, ctx) => {
    if (c.PRESERVATION_URL && (!c.PRESERVATION_USERNAME || !c.PRESERVATION_PASSWORD)) {
      ctx.addIssue({
        code: "custom",
        path: [c.PRESERVATION_USERNAME ? "PRESERVATION_PASSWORD" : "PRESERVATION_USERNAME"],
        message: "is required when PRESERVATION_URL is set",
      });
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
  /** The overall deadline of one tool call, in seconds (the error boundary in server.ts enforces it). */
  toolTimeoutSecs: number;
  http: { enabled: boolean; host: string; port: number; token?: string };
  /** Local folders the ingest tools may read from; empty = no local ingest (the tools are not offered). */
  ingestRoots: string[];
  /**
   * Seals confirmation tokens and requests for the person's answer: any server with the same key accepts
   * them. Unset = a random key per process (tokens die with the process).
   */
  confirmKey?: string;
  /** Where every write and refused write is appended as one JSON line; unset = no audit file. */
  auditLog?: string;
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
};

/** Where the embedded default keeps its data when PRESERVATION_DATA_DIR is unset: $XDG_DATA_HOME/preservation-mcp, else ~/.local/share/preservation-mcp. */
export function defaultDataDir(env: NodeJS.ProcessEnv): string {
  if (env.XDG_DATA_HOME) return join(env.XDG_DATA_HOME, "preservation-mcp");
  return join(homedir(), ".local", "share", "preservation-mcp");
}

export function loadConfig(argv: string[], env: NodeJS.ProcessEnv = process.env): Config {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
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
        http: { type: "boolean" },
        host: { type: "string", default: "127.0.0.1" },
        port: { type: "string", default: "3000" },
      },
      strict: true,
    }));
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
  const merged: Record<string, string | undefined> = {};
  for (const key of Object.keys(ConfigSchema.shape ?? {})) merged[key] = env[key];
  for (const [flag, key] of Object.entries(FLAG_TO_ENV)) {
    const v = values[flag];
    if (v !== undefined) merged[key] = String(v);
  }
  // Empty variables are treated as unset (a common shell and MCP-client config habit).
  for (const k of Object.keys(merged)) if (merged[k] === "") merged[k] = undefined;

  const parsed = ConfigSchema.safeParse(merged);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const name = String(issue?.path[0] ?? "configuration");
    throw new ConfigError(`${name} ${issue?.message ?? "is invalid"}`);
  }
  const c = parsed.data;
  const port = Number(values.port);
  if (!/^\d+$/.test(String(values.port)) || port > 65535) {
    throw new ConfigError(`--port must be 0-65535, got "${values.port}"`);
  }
  const host = String(values.host);
  const http = { enabled: values.http === true, host, port, token: c.PRESERVATION_HTTP_TOKEN };
  if (http.enabled && !isLoopback(host) && !http.token) {
    throw new ConfigError(
      `PRESERVATION_HTTP_TOKEN is required when --host is ${host} (not loopback): clients must send it as a bearer token`,
    );
  }
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
  };
}

export function isLoopback(host: string): boolean {
  return host === "127.0.0.1" || host === "localhost" || host === "::1" || host === "[::1]";
}
