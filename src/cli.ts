#!/usr/bin/env node

/** The one entry point: `preservation-mcp [--http ...] | repository ... | tour`. */

const usage = (
  repositoryUsage: string,
) => `Usage: preservation-mcp [options]            MCP server over stdio (the default)
       preservation-mcp --http [--host H] [--port P]   MCP over Streamable HTTP at /mcp
       preservation-mcp repository [options]            the local repository service alone
       preservation-mcp tour [options]                  a scripted demonstration conversation (no account needed)

MCP server options (each also an environment variable; see the README):
  --url URL            repository service (PRESERVATION_URL); omitted: the embedded demo service
  --username NAME      (PRESERVATION_USERNAME); the password only by PRESERVATION_PASSWORD
  --tenant NAME        (PRESERVATION_TENANT)
  --read-only          no write tools at all (PRESERVATION_READ_ONLY)
  --toolsets LIST      comma list: default, all, or toolset names (PRESERVATION_TOOLSETS)
  --log-level LEVEL    fatal|error|warn|info|debug|trace|silent (PRESERVATION_LOG_LEVEL); logs go to stderr
  --data-dir DIR       embedded service data (PRESERVATION_DATA_DIR)
  --tool-timeout-secs N  overall deadline of one tool call, default 45 (PRESERVATION_TOOL_TIMEOUT_SECS)

${repositoryUsage}`;

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
      // Loaded only here: the tour's MCP client costs every other start ~30 ms of module loading.
      return (await import("./tour.js")).runTour(rest);
    case "-h":
    case "--help":
    case "help":
      process.stdout.write(usage((await import("../repository/main.js")).REPOSITORY_USAGE));
      return 0;
    default:
      if (command !== undefined && !command.startsWith("-")) {
        throw new UsageError(`unknown command "${command}"; see preservation-mcp --help`);
      }
      // Loaded only here: the repository command alone should not pay for the MCP SDK at start-up.
      await (await import("./main.js")).runMcpServer(argv);
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
