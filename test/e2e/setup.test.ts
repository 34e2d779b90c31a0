import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, describe, expect, it } from "vitest";
import { CLI, runCli } from "../helpers/process.js";
import { childEnv, demoDataDir, killStragglers } from "./helpers.js";

afterAll(killStragglers);

/**
 * `preservation-mcp setup <client>` prints a snippet that works as pasted: each is read the way its client reads
 * it (JSON with the documented keys; Claude Code's command line word-split by a real POSIX shell), and the
 * command it names is started as the client would start it and answers an MCP client.
 */

const REMOTE = ["--url", "https://repo.example.org", "--username", "ada@example.org", "--tenant", "ACME"];

async function setup(args: string[]) {
  const r = await runCli(["setup", ...args], { env: childEnv() });
  return { ...r, json: r.code === 0 && !args.includes("claude-code") ? JSON.parse(r.stdout) : undefined };
}

describe.each(["claude-desktop", "cursor"])("%s: mcpServers JSON", (client) => {
  it("names this Node and this installation's bundle by absolute path, no placeholder path", async () => {
    const { code, json, stderr } = await setup([client]);
    expect(code).toBe(0);
    const server = json.mcpServers.preservation;
    expect(Object.keys(json)).toEqual(["mcpServers"]);
    expect(server.command).toBe(process.execPath);
    expect(server.args).toEqual([CLI]);
    expect(existsSync(server.args[0])).toBe(true);
    expect(server.env).toBeUndefined();
    expect(stderr).toMatch(client === "cursor" ? /\.cursor[/\\]mcp\.json/ : /claude_desktop_config\.json/);
  });

  it("for a remote repository: URL, user, tenant set; the password a placeholder the instructions name", async () => {
    const { json, stderr } = await setup([client, ...REMOTE, "--read-only"]);
    expect(json.mcpServers.preservation.env).toEqual({
      PRESERVATION_URL: "https://repo.example.org",
      PRESERVATION_USERNAME: "ada@example.org",
      PRESERVATION_TENANT: "ACME",
      PRESERVATION_READ_ONLY: "true",
      PRESERVATION_PASSWORD: "<your repository password>",
    });
    expect(stderr).toContain("Replace <your repository password>");
  });
});

describe("vscode: .vscode/mcp.json", () => {
  it("a stdio server under `servers`, the password from a promptString input it declares", async () => {
    const { json } = await setup(["vscode", ...REMOTE, "--name", "archive"]);
    const server = json.servers.archive;
    expect(server).toMatchObject({ type: "stdio", command: process.execPath, args: [CLI] });
    const ref = server.env.PRESERVATION_PASSWORD.match(/^\$\{input:([^}]+)\}$/)?.[1];
    expect(json.inputs).toEqual([
      { type: "promptString", id: ref, description: "Repository password", password: true },
    ]);
  });
});

describe("claude-code: a command line", () => {
  it("split by a real shell: options, then the name, then -- and the command; the password from the environment", async () => {
    const { code, stdout } = await setup(["claude-code", ...REMOTE]);
    expect(code).toBe(0);
    // `claude` replaced by a shell function printing each argument it gets, one per line.
    const words = execFileSync(
      "sh",
      ["-c", `claude() { for a in "$@"; do printf '%s\\n' "$a"; done; }\n${stdout}`],
      {
        env: { PATH: process.env.PATH ?? "", PRESERVATION_PASSWORD: "it's a secret" },
        encoding: "utf8",
      },
    )
      .trimEnd()
      .split("\n");
    const dash = words.indexOf("--");
    expect(words.slice(0, 4)).toEqual(["mcp", "add", "--transport", "stdio"]);
    expect(words.slice(dash - 1)).toEqual(["preservation", "--", process.execPath, CLI]);
    const envs = words.filter((_, i) => words[i - 1] === "--env");
    expect(envs).toEqual([
      "PRESERVATION_URL=https://repo.example.org",
      "PRESERVATION_USERNAME=ada@example.org",
      "PRESERVATION_TENANT=ACME",
      "PRESERVATION_PASSWORD=it's a secret",
    ]);
  });
});

it("the printed command, started as a client starts it, serves MCP (embedded demo repository)", async () => {
  const { json } = await setup(["claude-desktop"]);
  const { command, args } = json.mcpServers.preservation;
  const data = demoDataDir();
  const client = new Client({ name: "setup-test", version: "1" });
  try {
    await client.connect(
      new StdioClientTransport({
        command,
        args,
        env: childEnv({ PRESERVATION_DATA_DIR: data.dir }),
        stderr: "ignore",
      }),
    );
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain("search");
  } finally {
    await client.close();
    data.cleanup();
  }
});

it.each([
  [[]],
  [["foo"]],
  [["vscode", "cursor"]],
  [["vscode", "--name", "has space"]],
  [["cursor", "--bogus"]],
])("setup %j: one stderr line, exit 2, nothing on stdout", async (args) => {
  const r = await runCli(["setup", ...args], { env: childEnv() });
  expect(r.code).toBe(2);
  expect(r.stdout).toBe("");
  expect(r.stderr.trim().split("\n")).toHaveLength(1);
  expect(r.stderr).toMatch(/^preservation-mcp: /);
});
