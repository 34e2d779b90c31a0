import { describe, expect, it } from "vitest";
import {
  ConfigError,
  ConfigSchema,
  FALSE_WORDS,
  loadConfig,
  MUST_BE,
  parseBoolean,
  passwordInClearWarning,
  TRUE_WORDS,
} from "../src/config.js";

/** Configuration errors in plain words, the same boolean spellings everywhere, no password flag. */

function errorOf(argv: string[], env: Record<string, string>): string {
  try {
    loadConfig(argv, env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error(`accepted ${JSON.stringify({ argv, env })}`);
}

/** A value each variable refuses; variables that take any text have none. */
const BAD: Record<string, string | undefined> = {
  PRESERVATION_URL: "nope",
  PRESERVATION_USERNAME: undefined,
  PRESERVATION_PASSWORD: undefined,
  PRESERVATION_TENANT: undefined,
  PRESERVATION_READ_ONLY: "perhaps",
  PRESERVATION_TOOLSETS: undefined, // names are checked against the registry at start-up (cli/main.ts)
  PRESERVATION_LOG_LEVEL: "loud",
  PRESERVATION_DATA_DIR: undefined,
  PRESERVATION_DOWNLOAD_DIR: "relative/folder",
  PRESERVATION_MAX_SESSION_MINS: "abc",
  PRESERVATION_TOOL_TIMEOUT_SECS: "soon",
  PRESERVATION_HTTP_TOKEN: "short",
  PRESERVATION_HTTP_RATE: "lots",
  PRESERVATION_INGEST_ROOTS: "relative",
  PRESERVATION_CONFIRM_KEY: "short",
  PRESERVATION_AUDIT_LOG: "audit.jsonl",
  PRESERVATION_OAUTH_ISSUER: "http://login.example.org",
  PRESERVATION_OAUTH_JWKS_URL: "ftp://login.example.org/keys",
  PRESERVATION_OAUTH_AUDIENCE: "mcp.example.org",
  PRESERVATION_WEBHOOK_URL: "ftp://mcp.example.org/webhook",
  PRESERVATION_STATE_URL: "http://user:secret@state.internal:6379",
  PRESERVATION_IDENTITY: "everyone",
};

/** zod's own wording, for programmers: never what a person reads. */
const ZOD_WORDING = /Invalid input|expected|received|NaN|Too small|Too big|Invalid (url|option)/i;

describe("configuration errors", () => {
  it("the table covers every variable", () => {
    expect(Object.keys(BAD).sort()).toEqual(Object.keys(ConfigSchema.shape).sort());
    expect(Object.keys(MUST_BE).sort()).toEqual(Object.keys(ConfigSchema.shape).sort());
  });

  it.each(Object.entries(BAD).filter(([, bad]) => bad !== undefined))(
    "%s=%s: names the variable and says what it must be, in plain words",
    (name, bad) => {
      const message = errorOf([], { [name]: bad as string });
      expect(message.startsWith(`${name} must`)).toBe(true);
      expect(message).not.toMatch(ZOD_WORDING);
      // Values are never repeated: some are secrets.
      expect(message).not.toContain(`"${bad}"`);
    },
  );

  it("PRESERVATION_MAX_SESSION_MINS=abc (the case the issue quotes), 0 and 1.5", () => {
    for (const bad of ["abc", "0", "1.5", "-3"]) {
      expect(errorOf([], { PRESERVATION_MAX_SESSION_MINS: bad })).toBe(
        "PRESERVATION_MAX_SESSION_MINS must be a whole number of minutes, at least 1",
      );
    }
    expect(loadConfig([], { PRESERVATION_MAX_SESSION_MINS: " 90 " }).maxSessionMins).toBe(90);
    expect(loadConfig([], {}).maxSessionMins).toBe(480);
  });

  it("a value given by flag is reported by the flag's name", () => {
    expect(errorOf(["--tool-timeout-secs", "soon"], {})).toBe(
      "--tool-timeout-secs must be a number of seconds between 1 and 600",
    );
    expect(errorOf(["--download-dir", "rel"], {})).toMatch(/^--download-dir must be an absolute path/);
  });

  it("unknown options, missing values and stray arguments are plain too", () => {
    expect(errorOf(["--no-such-flag"], {})).toBe(
      "unknown option --no-such-flag; see preservation-mcp --help",
    );
    expect(errorOf(["--url"], {})).toBe("--url needs a value; see preservation-mcp --help");
    expect(errorOf(["--read-only=no"], {})).toMatch(/^--read-only takes no value/);
    expect(errorOf(["stray"], {})).toBe("unexpected argument stray; see preservation-mcp --help");
  });

  it("live resources: a webhook URL needs --http (a stdio server has no receiver), and is taken with it", () => {
    expect(errorOf(["--webhook-url", "https://mcp.example.org/webhook"], {})).toMatch(
      /^--webhook-url needs --http: live resources are served over Streamable HTTP/,
    );
    expect(errorOf([], { PRESERVATION_WEBHOOK_URL: "https://user:pw@mcp.example.org/webhook" })).toMatch(
      /^PRESERVATION_WEBHOOK_URL must be the http\(s\) URL/,
    );
    const c = loadConfig(["--http"], { PRESERVATION_WEBHOOK_URL: "https://mcp.example.org/webhook" });
    expect(c.http.webhookUrl).toBe("https://mcp.example.org/webhook");
  });

  it("shared state: a redis:// or rediss:// URL, by variable or --state-url; a bad one is refused without repeating it", () => {
    expect(loadConfig([], {}).stateUrl).toBeUndefined();
    expect(loadConfig([], { PRESERVATION_STATE_URL: "redis://:pw@127.0.0.1:6379/2" }).stateUrl).toBe(
      "redis://:pw@127.0.0.1:6379/2",
    );
    expect(loadConfig(["--state-url", "rediss://state.internal:6380"], {}).stateUrl).toBe(
      "rediss://state.internal:6380",
    );
    const message = errorOf(["--state-url", "valkey-host:6379"], {});
    expect(message).toMatch(/^--state-url must be a redis:\/\/ or rediss:\/\/ URL/);
    expect(errorOf([], { PRESERVATION_STATE_URL: "https://user:hunter2@x" })).not.toContain("hunter2");
  });

  it("identity person: only with --http and OAuth, without a static token or live resources; no account needed", () => {
    const oauth = {
      PRESERVATION_OAUTH_ISSUER: "https://login.example.org",
      PRESERVATION_OAUTH_JWKS_URL: "https://login.example.org/jwks.json",
    };
    expect(errorOf(["--identity", "person"], oauth)).toMatch(/^--identity person needs --http with OAuth/);
    expect(errorOf(["--http"], { PRESERVATION_IDENTITY: "person" })).toMatch(
      /^PRESERVATION_IDENTITY person needs --http with OAuth \(PRESERVATION_OAUTH_ISSUER/,
    );
    expect(
      errorOf(["--http", "--identity", "person"], {
        ...oauth,
        PRESERVATION_HTTP_TOKEN: "a-static-token-of-16+",
      }),
    ).toMatch(/cannot be used with PRESERVATION_HTTP_TOKEN: a shared static token names no person/);
    expect(
      errorOf(["--http", "--identity", "person", "--webhook-url", "https://mcp.example.org/webhook"], oauth),
    ).toMatch(/cannot be used with PRESERVATION_WEBHOOK_URL yet/);
    // A remote service with no account of the server's own: each person signs in as themselves.
    const c = loadConfig(["--http", "--identity", "person"], {
      ...oauth,
      PRESERVATION_URL: "https://repo.example.org",
    });
    expect(c.identity).toBe("person");
    expect(c.username).toBeUndefined();
    expect(loadConfig([], {}).identity).toBe("service");
  });

  it("--password is refused, pointing to PRESERVATION_PASSWORD, without repeating the password", () => {
    for (const argv of [["--password", "hunter2"], ["--password=hunter2"]]) {
      const message = errorOf(argv, {});
      expect(message).toMatch(/^--password is not accepted: .*PRESERVATION_PASSWORD/);
      expect(message).not.toContain("hunter2");
    }
  });
});

describe("boolean variables", () => {
  it("accept true/false, 1/0, yes/no, on/off in any case", () => {
    for (const word of TRUE_WORDS) {
      expect(parseBoolean(word.toUpperCase())).toBe(true);
      expect(loadConfig([], { PRESERVATION_READ_ONLY: ` ${word} ` }).readOnly).toBe(true);
    }
    for (const word of FALSE_WORDS) {
      expect(parseBoolean(word)).toBe(false);
      expect(loadConfig([], { PRESERVATION_READ_ONLY: word.toUpperCase() }).readOnly).toBe(false);
    }
    expect([...TRUE_WORDS, ...FALSE_WORDS].sort()).toEqual(
      ["true", "false", "1", "0", "yes", "no", "on", "off"].sort(),
    );
  });

  it("every boolean variable takes the same spellings (each is listed by its message)", () => {
    const booleans = Object.keys(MUST_BE).filter((k) => /true or false/.test(MUST_BE[k] ?? ""));
    expect(booleans).toContain("PRESERVATION_READ_ONLY");
    for (const name of booleans) {
      expect(MUST_BE[name]).toBe("must be true or false (also 1/0, yes/no, on/off)");
      for (const word of [...TRUE_WORDS, ...FALSE_WORDS])
        expect(() => loadConfig([], { [name]: word })).not.toThrow();
    }
  });

  it("the --read-only flag and an empty variable", () => {
    expect(loadConfig(["--read-only"], { PRESERVATION_READ_ONLY: "off" }).readOnly).toBe(true);
    expect(loadConfig([], { PRESERVATION_READ_ONLY: "" }).readOnly).toBe(false);
  });
});

describe("ingest folders after --", () => {
  it("are added to PRESERVATION_INGEST_ROOTS, one argument each (how an MCP Bundle host passes a list)", () => {
    const config = loadConfig(["--read-only", "--", "/srv/a", "/srv/b c"], {
      PRESERVATION_INGEST_ROOTS: "/srv/env",
    });
    expect(config.ingestRoots).toEqual(["/srv/env", "/srv/a", "/srv/b c"]);
    expect(config.readOnly).toBe(true);
    expect(loadConfig(["--"], {}).ingestRoots).toEqual([]);
  });
});

describe("a password sent in the clear", () => {
  const creds = { PRESERVATION_USERNAME: "u", PRESERVATION_PASSWORD: "p" };
  it.each([
    ["http://repo.example.org", "PRESERVATION_URL", true],
    ["https://repo.example.org", "PRESERVATION_URL", false],
    ["http://127.0.0.1:8080", "PRESERVATION_URL", false],
    ["http://127.0.0.2:8080", "PRESERVATION_URL", false],
    ["http://localhost:8080", "PRESERVATION_URL", false],
    ["http://[::1]:8080", "PRESERVATION_URL", false],
  ])("%s: warned %s", (url, _name, warned) => {
    const warning = passwordInClearWarning(loadConfig([], { ...creds, PRESERVATION_URL: url }));
    expect(warning !== undefined).toBe(warned);
    if (warning)
      expect(warning).toMatch(/^PRESERVATION_URL is plain http:\/\/ to repo\.example\.org.*unencrypted/);
  });

  it("names the flag when the URL came from --url", () => {
    const warning = passwordInClearWarning(loadConfig(["--url", "http://repo.example.org"], creds));
    expect(warning).toMatch(/^--url is plain http:\/\//);
  });
});
