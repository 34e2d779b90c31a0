import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { DEFAULT_DEMO_PASSWORDS, seedUsersAndTags } from "../../repository/seed.js";
import { checkPassword, publishedPasswordKey, publishedPasswordMarker } from "../../repository/store/auth.js";
import { openDatabase } from "../../repository/store/db.js";
import { tempDir } from "../helpers/temp-dir.js";

/**
 * Issue 9 §2, cold start of the embedded default: the sign-in with a published demo password skips scrypt,
 * and a start with data present does not load the demo seed.
 */

describe("published demo passwords", () => {
  it("are checked against the seed's marker, not with scrypt", () => {
    const db = openDatabase(tempDir("pmcp-cold-"));
    try {
      seedUsersAndTags(db, DEFAULT_DEMO_PASSWORDS);
      const pw = DEFAULT_DEMO_PASSWORDS.curator;
      expect(checkPassword(db, "curator", pw)?.username).toBe("curator");
      expect(checkPassword(db, "curator", "wrong")).toBeUndefined();
      // A stored hash scrypt could never match, marked as made from the published password: only the
      // marker can accept the password, so this proves scrypt is not run.
      db.prepare("UPDATE users SET password_hash = 'scrypt$00$00' WHERE username = 'curator'").run();
      db.prepare("UPDATE meta SET value = ? WHERE key = ?").run(
        publishedPasswordMarker(pw, "scrypt$00$00"),
        publishedPasswordKey("curator"),
      );
      expect(checkPassword(db, "curator", pw)?.username).toBe("curator");
      expect(checkPassword(db, "curator", "wrong")).toBeUndefined();
      // The marker binds the exact stored hash: once the hash changes, scrypt decides again.
      db.prepare("UPDATE users SET password_hash = 'scrypt$00$01' WHERE username = 'curator'").run();
      expect(checkPassword(db, "curator", pw)).toBeUndefined();
    } finally {
      db.close();
    }
  });

  it("keep scrypt for a password that was overridden", () => {
    const db = openDatabase(tempDir("pmcp-cold-"));
    try {
      seedUsersAndTags(db, { ...DEFAULT_DEMO_PASSWORDS, curator: "a-private-password" });
      const marker = db.prepare("SELECT value FROM meta WHERE key = ?").get(publishedPasswordKey("curator"));
      expect(marker).toBeUndefined();
      expect(checkPassword(db, "curator", "a-private-password")?.username).toBe("curator");
      expect(checkPassword(db, "curator", DEFAULT_DEMO_PASSWORDS.curator)).toBeUndefined();
      const hash = db.prepare("SELECT password_hash FROM users WHERE username = 'curator'").get() as {
        password_hash: string;
      };
      expect(hash.password_hash).toMatch(/^scrypt\$[0-9a-f]{32}\$[0-9a-f]{64}$/);
    } finally {
      db.close();
    }
  });
});

describe("starting the repository service", () => {
  const server = fileURLToPath(new URL("../../dist/repository/server.js", import.meta.url));
  /** Starts and stops the built service on `dataDir` in a fresh process; returns the modules it loaded. */
  const modulesLoadedByStart = (dataDir: string): string[] => {
    const trace = join(dataDir, "..", `modules-${Math.random().toString(36).slice(2)}.txt`);
    const hooks = `import { appendFileSync } from "node:fs";
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  appendFileSync(${JSON.stringify(trace)}, r.url + "\\n");
  return r;
}`;
    const register = `import { register } from "node:module"; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});`;
    const main = `const { startRepository } = await import(${JSON.stringify(server)});
const r = await startRepository({ port: 0, dataDir: ${JSON.stringify(dataDir)}, seed: "demo" });
await r.close();`;
    execFileSync(
      process.execPath,
      ["--import", `data:text/javascript,${encodeURIComponent(register)}`, "--input-type=module", "-e", main],
      { stdio: ["ignore", "ignore", "pipe"] },
    );
    return readFileSync(trace, "utf8").split("\n").filter(Boolean);
  };

  it("loads the demo seed only to seed an empty store", () => {
    const dataDir = join(tempDir("pmcp-cold-"), "data");
    const first = modulesLoadedByStart(dataDir);
    expect(first.some((u) => u.endsWith("/repository/seed/demo.js"))).toBe(true);
    const again = modulesLoadedByStart(dataDir);
    expect(again.some((u) => u.endsWith("/repository/server.js"))).toBe(true);
    expect(again.filter((u) => /\/repository\/seed\/(demo|demo-tree|synthetic)\.js$/.test(u))).toEqual([]);
  }, 60_000);

  it("loads the SQLite binding without a diagnostic report (~15 ms of each start)", () => {
    // libsql's platform check asks process.report.getReport() whether the C library is glibc; a report
    // that throws proves the answer came from elsewhere, and the binding still opens a database.
    const libsql = fileURLToPath(new URL("../../dist/repository/store/sqlite/libsql.js", import.meta.url));
    const main = `process.report.getReport = () => { throw new Error("asked for a diagnostic report"); };
const { loadLibsql } = await import(${JSON.stringify(libsql)});
const Database = loadLibsql();
process.stdout.write(String(new Database(":memory:").prepare("SELECT 6 * 7 AS n").get().n));`;
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", main], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    expect(out.toString()).toBe("42");
  });
});
