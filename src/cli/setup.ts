import { homedir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { bundlePath } from "./self-command.js";

/**
 * `preservation-mcp setup <client>`: the exact configuration snippet for this installation (absolute paths
 * of this Node and of this server), in the format the client documents, on stdout; where to put it and what
 * to fill in, on stderr. A snippet pasted as printed works: there is no `/path/to/` left to replace.
 */

export const SETUP_CLIENTS = ["claude-desktop", "claude-code", "vscode", "cursor"] as const;
export type SetupClient = (typeof SETUP_CLIENTS)[number];

export const SETUP_USAGE = `Usage: preservation-mcp setup <${SETUP_CLIENTS.join("|")}> [options]

Prints the MCP client configuration that runs this installation of preservation-mcp over stdio: the snippet
on stdout, where it goes on stderr. Without --url it uses the embedded demo repository.

Options:
  --name NAME        the server's name in the client, default preservation
  --url URL          repository service (PRESERVATION_URL); the password is asked for, never written here
  --username NAME    (PRESERVATION_USERNAME)
  --tenant NAME      (PRESERVATION_TENANT)
  --read-only        no tool that changes the repository (PRESERVATION_READ_ONLY)
  --toolsets LIST    (PRESERVATION_TOOLSETS)
`;

/** A mistake on the command line: exit code 2, one line (the CLI recognises the name). */
export class SetupUsageError extends Error {
  override readonly name = "UsageError";
}

interface SetupOptions {
  name: string;
  env: Record<string, string>;
  /** The repository needs a password (a URL was given): each client gets its own way of asking for it. */
  needsPassword: boolean;
}

const PASSWORD_PLACEHOLDER = "<your repository password>";
const USERNAME_PLACEHOLDER = "<your repository user name>";

function parse(args: string[]): { client: SetupClient; options: SetupOptions } {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof SETUP_OPTIONS; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args, options: SETUP_OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    throw new SetupUsageError(`${(err as Error).message.split(". ")[0]}; see preservation-mcp setup --help`);
  }
  const [client, ...extra] = parsed.positionals;
  if (!client || !(SETUP_CLIENTS as readonly string[]).includes(client) || extra.length > 0) {
    throw new SetupUsageError(
      `setup needs one client: ${SETUP_CLIENTS.join(", ")}${client ? ` (got "${[client, ...extra].join(" ")}")` : ""}`,
    );
  }
  const v = parsed.values;
  if (v.name !== undefined && !/^[A-Za-z0-9_-]{1,64}$/.test(v.name)) {
    throw new SetupUsageError("--name must be 1-64 letters, digits, - or _ (clients use it as a key)");
  }
  const env: Record<string, string> = {};
  if (v.url) {
    env.PRESERVATION_URL = v.url;
    env.PRESERVATION_USERNAME = v.username ?? USERNAME_PLACEHOLDER;
  } else if (v.username) {
    env.PRESERVATION_USERNAME = v.username;
  }
  if (v.tenant) env.PRESERVATION_TENANT = v.tenant;
  if (v["read-only"]) env.PRESERVATION_READ_ONLY = "true";
  if (v.toolsets) env.PRESERVATION_TOOLSETS = v.toolsets;
  return {
    client: client as SetupClient,
    options: { name: v.name ?? "preservation", env, needsPassword: !!v.url },
  };
}

const SETUP_OPTIONS = {
  name: { type: "string" },
  url: { type: "string" },
  username: { type: "string" },
  tenant: { type: "string" },
  "read-only": { type: "boolean" },
  toolsets: { type: "string" },
} as const;

/** The command every snippet runs: this Node (GUI clients often have no `node` on their PATH) and the bundle. */
function command(): { command: string; args: string[] } {
  return { command: process.execPath, args: [bundlePath()] };
}

/** POSIX shell quoting: a single-quoted word, with any ' closed, escaped and reopened. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_\-./:=@%+,]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

function desktopConfigPath(): string {
  if (process.platform === "darwin") {
    return join(homedir(), "Library", "Application Support", "Claude", "claude_desktop_config.json");
  }
  if (process.platform === "win32")
    return join(process.env.APPDATA ?? "%APPDATA%", "Claude", "claude_desktop_config.json");
  return join(homedir(), ".config", "Claude", "claude_desktop_config.json");
}

/** The snippet (stdout) and the instructions (stderr) for one client. */
export function setupSnippet(args: string[]): { snippet: string; instructions: string } {
  const { client, options } = parse(args);
  const { name, env, needsPassword } = options;
  const run = command();
  switch (client) {
    case "claude-desktop":
    case "cursor": {
      const withPassword = needsPassword ? { ...env, PRESERVATION_PASSWORD: PASSWORD_PLACEHOLDER } : env;
      const server = {
        command: run.command,
        args: run.args,
        ...(Object.keys(withPassword).length ? { env: withPassword } : {}),
      };
      const where =
        client === "cursor"
          ? `${join(homedir(), ".cursor", "mcp.json")} (every project) or .cursor/mcp.json (one project)`
          : desktopConfigPath();
      return {
        snippet: `${JSON.stringify({ mcpServers: { [name]: server } }, null, 2)}\n`,
        instructions: [
          `Merge this into ${where}, under "mcpServers" (keep any servers already there), then restart ${client === "cursor" ? "Cursor" : "Claude Desktop"}.`,
          ...(needsPassword
            ? [
                `Replace ${PASSWORD_PLACEHOLDER}${env.PRESERVATION_USERNAME === USERNAME_PLACEHOLDER ? ` and ${USERNAME_PLACEHOLDER}` : ""}; the file then holds your password, so keep it private.`,
              ]
            : ["It uses the embedded demo repository; add --url, --username (and --tenant) for your own."]),
          ...(client === "claude-desktop"
            ? ["An MCP Bundle (npm run bundle) keeps the password in the system's secure storage instead."]
            : []),
        ].join("\n"),
      };
    }
    case "vscode": {
      const inputs = needsPassword
        ? [
            {
              type: "promptString",
              id: `${name}-password`,
              description: "Repository password",
              password: true,
            },
          ]
        : [];
      const serverEnv = needsPassword ? { ...env, PRESERVATION_PASSWORD: `\${input:${name}-password}` } : env;
      const server = {
        type: "stdio",
        command: run.command,
        args: run.args,
        ...(Object.keys(serverEnv).length ? { env: serverEnv } : {}),
      };
      return {
        snippet: `${JSON.stringify({ ...(inputs.length ? { inputs } : {}), servers: { [name]: server } }, null, 2)}\n`,
        instructions: [
          'Save this as .vscode/mcp.json in your workspace (or merge its "servers" and "inputs" into the one there).',
          needsPassword
            ? "VS Code asks for the password once, when the server first starts, and keeps it in its secret storage."
            : "It uses the embedded demo repository; add --url, --username (and --tenant) for your own.",
        ].join("\n"),
      };
    }
    case "claude-code": {
      const words = ["claude", "mcp", "add", "--transport", "stdio"];
      for (const [k, val] of Object.entries(env)) words.push("--env", shellQuote(`${k}=${val}`));
      // The shell fills the password in from the environment, so it is typed into no command line or history.
      if (needsPassword) words.push("--env", '"PRESERVATION_PASSWORD=$PRESERVATION_PASSWORD"');
      words.push(name, "--", shellQuote(run.command), ...run.args.map(shellQuote));
      return {
        snippet: `${words.join(" ")}\n`,
        instructions: [
          "Run this in a terminal (add --scope user to have it in every project).",
          ...(needsPassword
            ? [
                "First put the password in the environment without echoing it: read -rs PRESERVATION_PASSWORD && export PRESERVATION_PASSWORD",
              ]
            : ["It uses the embedded demo repository; add --url, --username (and --tenant) for your own."]),
        ].join("\n"),
      };
    }
  }
}

export function runSetup(args: string[]): number {
  if (args.includes("--help") || args.includes("-h")) {
    process.stdout.write(SETUP_USAGE);
    return 0;
  }
  const { snippet, instructions } = setupSnippet(args);
  process.stdout.write(snippet);
  process.stderr.write(`${instructions}\n`);
  return 0;
}
