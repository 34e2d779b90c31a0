#!/usr/bin/env node
import { REPOSITORY_USAGE, runRepository, UsageError } from "../repository/main.js";

/** The one entry point: `preservation-mcp [repository] [options]`. */

const USAGE = `Usage: preservation-mcp <command> [options]

Commands:
  repository   run the local repository service (see: preservation-mcp repository --help)

${REPOSITORY_USAGE}`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case "repository":
      await runRepository(rest);
      return 0;
    case "-h":
    case "--help":
    case "help":
      process.stdout.write(USAGE);
      return 0;
    default:
      process.stderr.write(
        `preservation-mcp: ${command ? `unknown command "${command}"` : "the MCP server is not built yet"}; try "preservation-mcp repository"\n`,
      );
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    if (err instanceof UsageError) {
      process.stderr.write(`preservation-mcp: ${err.message}\n`);
      process.exitCode = 2;
    } else {
      process.stderr.write(`preservation-mcp: ${(err as Error)?.message ?? String(err)}\n`);
      process.exitCode = 1;
    }
  },
);
