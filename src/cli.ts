#!/usr/bin/env node

/** The one entry point: `preservation-mcp [--http ...] | repository ... | tour`. */

import { readFileSync } from "node:fs";

/** MCP server options: shared by the server and `tour` (each also an environment variable). */
const MCP_OPTIONS = `MCP server options (each also an environment variable; see the README):
  --url URL              repository service (PRESERVATION_URL); omitted: the embedded demo service
  --username NAME        (PRESERVATION_USERNAME); the password only by PRESERVATION_PASSWORD, never a flag
  --tenant NAME          (PRESERVATION_TENANT)
  --read-only            no tool that changes the repository (PRESERVATION_READ_ONLY)
  --toolsets LIST        comma list: default, all, or toolset names (PRESERVATION_TOOLSETS)
  --log-level LEVEL      fatal|error|warn|info|debug|trace|silent (PRESERVATION_LOG_LEVEL); logs go to stderr
  --data-dir DIR         embedded service data (PRESERVATION_DATA_DIR)
  --download-dir DIR     folder where download_file and export save files; unset: no downloads
                         (PRESERVATION_DOWNLOAD_DIR)
  --ingest-roots DIRS    folders the ingest tools may read, separated by the path delimiter (: or ;);
                         unset: no local ingest (PRESERVATION_INGEST_ROOTS)
  --audit-log FILE       append every write and refused write as a JSON line (PRESERVATION_AUDIT_LOG)
  --tool-timeout-secs N  overall deadline of one tool call, default 45 (PRESERVATION_TOOL_TIMEOUT_SECS)
  --webhook-url URL      with --http: live resources; the URL at which the repository service reaches this
                         server's /webhook endpoint (PRESERVATION_WEBHOOK_URL)
  --state-url URL        Valkey/Redis shared by several instances of a team server: single-use tokens,
                         leases, rate budgets, the audit trail (PRESERVATION_STATE_URL); unset: in-process
  --identity MODE        service (default: one repository account) or person (with --http and OAuth: each
                         caller signs in to the repository as themselves) (PRESERVATION_IDENTITY)
  -- DIR...              after all options: more ingest folders, one argument each (as MCP Bundle hosts pass them)

Environment only:
  PRESERVATION_PASSWORD          password of PRESERVATION_USERNAME
  PRESERVATION_MAX_SESSION_MINS  the service's session lifetime in minutes, default 480
  PRESERVATION_HTTP_TOKEN        bearer token HTTP clients must send (required with a non-loopback --host)
  PRESERVATION_CONFIRM_KEY       key sealing confirmation tokens, shared by servers behind one URL
  PRESERVATION_HTTP_RATE         requests per HTTP client (20/s, 600/min, 5000/h or off), default 600/min
  PRESERVATION_OAUTH_ISSUER      accept OAuth access tokens (JWT) from this authorization server over HTTP
  PRESERVATION_OAUTH_JWKS_URL    the issuer's signing keys (JWKS); https, or http on loopback
  PRESERVATION_OAUTH_AUDIENCE    the aud tokens must carry, default this server's /mcp URL

Booleans accept true/false, 1/0, yes/no, on/off. An empty variable counts as unset.`;

const usage = (
  repositoryUsage: string,
) => `Usage: preservation-mcp [options]                 MCP server over stdio (the default)
       preservation-mcp --http [--host H] [--port P] [options]
                                                  MCP over Streamable HTTP at /mcp (default 127.0.0.1:3000)
       preservation-mcp repository [options]      the local repository service alone
       preservation-mcp tour [options]            a scripted demonstration conversation (no account needed)
       preservation-mcp setup <client> [options]  prints the configuration for claude-desktop, claude-code,
                                                  vscode or cursor that runs this installation
       preservation-mcp --version | --help        this program's version, or this text

HTTP options:
  --http                 serve MCP over Streamable HTTP instead of stdio
  --host HOST            address to bind, default 127.0.0.1 (elsewhere a token or OAuth is required)
  --port PORT            port, default 3000; 0 picks a free one

${MCP_OPTIONS}

${repositoryUsage}`;

const TOUR_USAGE = `Usage: preservation-mcp tour [options]

Runs a short scripted conversation between a real MCP client and this server, printed as it happens: against
the embedded demo repository, or the service PRESERVATION_URL names. Takes the MCP server options.

${MCP_OPTIONS}
`;

/** The package's version, from the package.json two levels above this file (dist/src/cli.js). */
function version(): string {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
  return String(pkg.version);
}

const wantsHelp = (args: string[]) => args.includes("--help") || args.includes("-h");

/** A mistake on the command line (exit code 2), as repository/main.ts's UsageError is. */
class UsageError extends Error {
  override readonly name = "UsageError";
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case "repository":
      // Loaded only here (and by the embedded default): an MCP server signing in to a remote service should
      // not carry the whole repository service (its routes, SQLite) in memory.
      await (await import("../repository/main.js")).runRepository(rest);
      return 0;
    case "tour":
      if (wantsHelp(rest)) {
        process.stdout.write(TOUR_USAGE);
        return 0;
      }
      // Loaded only here: the tour's MCP client costs every other start ~30 ms of module loading.
      return (await import("./cli/tour.js")).runTour(rest);
    case "setup":
      return (await import("./cli/setup.js")).runSetup(rest);
    case "-v":
    case "--version":
    case "version":
      process.stdout.write(`${version()}\n`);
      return 0;
    case "-h":
    case "--help":
    case "help":
      process.stdout.write(usage((await import("../repository/main.js")).REPOSITORY_USAGE));
      return 0;
    default:
      if (wantsHelp(argv)) return main(["--help"]);
      if (command !== undefined && !command.startsWith("-")) {
        throw new UsageError(`unknown command "${command}"; see preservation-mcp --help`);
      }
      // Loaded only here: the repository command alone should not pay for the MCP SDK at start-up.
      await (await import("./cli/main.js")).runMcpServer(argv);
      return 0;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    // One line on stderr (stdout may be an MCP client's pipe), then a non-zero exit.
    const name = (err as Error)?.name;
    const byUser = name === "UsageError" || name === "ConfigError";
    process.stderr.write(`preservation-mcp: ${(err as Error)?.message ?? String(err)}\n`);
    process.exitCode = byUser ? 2 : 1;
  },
);
