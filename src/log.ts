import { type DestinationStream, type Logger, pino } from "pino";

/**
 * The MCP server's logger. It writes to **stderr only**: stdout belongs to the MCP stdio transport, and a
 * single stray line there corrupts the JSON-RPC stream. Secrets are redacted by key wherever they appear
 * up to three levels deep (tokens, passwords, refresh tokens, authorization headers), as a second line of
 * defence: the API layer already keeps them out of the objects it logs.
 */

export type { Logger };

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Keys whose values are never written, whatever object they sit in. */
const SECRET_KEYS = [
  "token",
  "accessToken",
  "password",
  "refreshToken",
  '["refresh-token"]',
  "continuationToken",
  "twoFactorToken",
  "challengeToken",
  "authorization",
  "Authorization",
  "cookie",
  '["set-cookie"]',
  '["preservica-access-token"]',
  '["Preservica-Access-Token"]',
];

/** pino `redact` paths: each secret key at the top level and one or two levels down (e.g. `req.headers.x`). */
export const REDACT_PATHS: string[] = SECRET_KEYS.flatMap((k) => {
  const dotted = k.startsWith("[") ? k : `.${k}`;
  return [k.startsWith("[") ? k.slice(2, -2) : k, `*${dotted}`, `*.*${dotted}`];
});

function levelFrom(value: string | undefined): LogLevel | undefined {
  const v = value?.trim().toLowerCase();
  return LOG_LEVELS.find((l) => l === v);
}

export interface LoggerOptions {
  /** Level; else `PRESERVATION_LOG_LEVEL`, else `LOG_LEVEL`, else "info". */
  level?: string;
  /** Where to write; defaults to stderr (fd 2, synchronous so nothing is lost on exit). Tests pass a sink. */
  destination?: DestinationStream;
  name?: string;
}

export function createLogger(opts: LoggerOptions = {}): Logger {
  const level =
    levelFrom(opts.level) ??
    levelFrom(process.env.PRESERVATION_LOG_LEVEL) ??
    levelFrom(process.env.LOG_LEVEL) ??
    "info";
  return pino(
    {
      name: opts.name ?? "preservation-mcp",
      level,
      redact: { paths: REDACT_PATHS, censor: "[redacted]" },
    },
    opts.destination ?? pino.destination({ dest: 2, sync: true }),
  );
}

/** A logger that writes nothing: the default of the API layer when the caller gives none. */
export const silentLogger: Logger = pino({ level: "silent" });
