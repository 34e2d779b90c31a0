import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { CONFIG_OPTIONS, ConfigSchema } from "../../src/config.js";
import { CLI } from "../helpers/process.js";
import { childEnv, demoDataDir, killStragglers, spawnCli, startHttp } from "./helpers.js";

afterAll(killStragglers);

/** The command line as a newcomer meets it: version, help for every command, refusals in plain words. */

function run(args: string[], env: Record<string, string> = childEnv()) {
  const r = spawnSync(process.execPath, [CLI, ...args], { env, encoding: "utf8", timeout: 15_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));

describe("--version and --help", () => {
  it("--version prints package.json's version", () => {
    for (const flag of ["--version", "-v"]) {
      const r = run([flag]);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(`${pkg.version}\n`);
    }
  });

  it("--help lists every flag, every variable and every command", () => {
    const r = run(["--help"]);
    expect(r.code).toBe(0);
    for (const flag of Object.keys(CONFIG_OPTIONS)) expect(r.stdout).toContain(`--${flag}`);
    for (const variable of Object.keys(ConfigSchema.shape)) expect(r.stdout).toContain(variable);
    for (const command of ["repository", "tour", "--version"]) expect(r.stdout).toContain(command);
    // The repository command's own flags, too.
    for (const flag of ["--seed", "--token-ttl", "--data"]) expect(r.stdout).toContain(flag);
  });

  it("--help after other flags still helps, and starts nothing", () => {
    const r = run(["--http", "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: preservation-mcp/);
  });

  it.each([["tour"], ["repository"]])("%s --help prints its usage and exits 0", (command) => {
    const r = run([command, "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^Usage: preservation-mcp ${command}`));
    expect(r.stderr).toBe("");
  });

  it("tour --help lists the MCP server options the tour takes", () => {
    const r = run(["tour", "--help"]);
    for (const flag of ["--url", "--toolsets", "--download-dir", "--ingest-roots", "--audit-log"]) {
      expect(r.stdout).toContain(flag);
    }
  });
});

describe("refusals", () => {
  it("--password: refused with a pointer to PRESERVATION_PASSWORD, exit code 2, the password not repeated", () => {
    const r = run(["--password", "hunter2"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^preservation-mcp: --password is not accepted: .*PRESERVATION_PASSWORD/);
    expect(r.stderr).not.toContain("hunter2");
    expect(r.stdout).toBe("");
  });

  it("PRESERVATION_MAX_SESSION_MINS=abc: one plain line", () => {
    const r = run([], childEnv({ PRESERVATION_MAX_SESSION_MINS: "abc" }));
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "preservation-mcp: PRESERVATION_MAX_SESSION_MINS must be a whole number of minutes, at least 1\n",
    );
  });
});

describe("started by hand", () => {
  const data = demoDataDir();
  afterAll(() => data.cleanup());

  // `script` gives the child a terminal; without one (CI containers may lack util-linux) the test is skipped.
  const hasScript = spawnSync("script", ["--version"], { encoding: "utf8" }).status === 0;

  it.skipIf(!hasScript)(
    "over stdio in a terminal: one human line on stderr, what it serves and that it waits for a client",
    async () => {
      const env = childEnv({ PRESERVATION_DATA_DIR: data.dir, PRESERVATION_LOG_LEVEL: "warn" });
      // The server's stdin, stdout and stderr are the terminal; script copies what it shows to its stdout.
      const child = spawn("script", ["-qec", `"${process.execPath}" "${CLI}"`, "/dev/null"], {
        env,
        stdio: ["pipe", "pipe", "pipe"],
      });
      let out = "";
      child.stdout.setEncoding("utf8").on("data", (d: string) => {
        out += d;
      });
      try {
        await expect.poll(() => out, { timeout: 15_000, interval: 100 }).toMatch(/waiting for an MCP client/);
        const lines = out.split(/\r?\n/).filter((l) => l.includes("waiting for an MCP client"));
        expect(lines).toHaveLength(1);
        expect(lines[0]).toMatch(
          /^preservation-mcp: serving \d+ tools for the embedded demo repository at http:\/\/127\.0\.0\.1:\d+ \(data in .+\), signed in as curator; waiting for an MCP client on stdin\/stdout/,
        );
      } finally {
        child.kill("SIGTERM");
      }
    },
  );

  it("over stdio from a client (a pipe, not a terminal): no such line", async () => {
    const cli = spawnCli([], childEnv({ PRESERVATION_DATA_DIR: data.dir, PRESERVATION_LOG_LEVEL: "info" }));
    await expect.poll(() => cli.stderr(), { timeout: 15_000 }).toMatch(/MCP over stdio/);
    await cli.stop();
    expect(cli.stderr()).not.toMatch(/waiting for an MCP client/);
  });

  it("the HTTP banner, while a sign-in challenge waits for a person, does not say signed in", async () => {
    const http = await startHttp(
      [],
      childEnv({
        PRESERVATION_DATA_DIR: data.dir,
        PRESERVATION_USERNAME: "twofactor",
        PRESERVATION_LOG_LEVEL: "error",
      }),
    );
    try {
      await expect.poll(() => http.stderr(), { timeout: 5_000 }).toMatch(/^repository: /m);
      const line = http.stderr().match(/^repository: .*$/m)?.[0] ?? "";
      expect(line).not.toMatch(/signed in as/);
      expect(line).toMatch(
        /not signed in yet: the sign-in as twofactor needs the current code from the authenticator app, given to the complete_sign_in tool$/,
      );
    } finally {
      await http.stop();
    }
  });

  it("the HTTP banner says signed in once the session is active", async () => {
    const http = await startHttp(
      [],
      childEnv({ PRESERVATION_DATA_DIR: data.dir, PRESERVATION_LOG_LEVEL: "error" }),
    );
    try {
      await expect
        .poll(() => http.stderr(), { timeout: 5_000 })
        .toMatch(/^repository: .*signed in as curator$/m);
    } finally {
      await http.stop();
    }
  });
});
