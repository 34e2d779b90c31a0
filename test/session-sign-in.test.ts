import { createServer } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { RunningRepository } from "../repository/server.js";
import { revokeToken } from "../repository/store/tokens.js";
import { createLogger } from "../src/log.js";
import { displayUrl, Session, type SessionOptions, SignInFailed } from "../src/session/session.js";
import { DEMO_USERS, startTestRepository } from "./helpers/repository.js";

/**
 * Sign-in under trouble (issue 9 §1): connection failures are retried with back-off and, once they run out,
 * reported as SignInFailed naming the service and the variable to fix; the next request tries again, so a
 * service that comes up later needs no restart. Refused credentials are never hammered.
 */

/** A loopback port where nothing listens (taken and released again). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function captureLog() {
  const lines: string[] = [];
  const logger = createLogger({ level: "trace", destination: { write: (s: string) => void lines.push(s) } });
  return { logger, lines };
}

const opened: Session[] = [];
const repos: RunningRepository[] = [];
function open(opts: Partial<SessionOptions> & { url: string }): Session {
  const s = new Session({ ...DEMO_USERS.manager, keepAlive: false, ...opts });
  opened.push(s);
  return s;
}
async function repoOn(port?: number, faults = false): Promise<RunningRepository> {
  const repo = await startTestRepository({ ...(port ? { port } : {}), ...(faults ? { faults: true } : {}) });
  repos.push(repo);
  return repo;
}
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
  await Promise.all(repos.splice(0).map((r) => r.close()));
});

function details(session: Session) {
  return session.http.request<{ userName: string }>({
    path: "/api/user/details",
    accept: "application/json",
    operation: "user.details",
  });
}

describe("sign-in retries", () => {
  it("tries again after a refused connection, and signs in once the service is up", async () => {
    const port = await freePort();
    const log = captureLog();
    const session = open({
      url: `http://127.0.0.1:${port}`,
      signInRetryDelaysMs: [300, 600, 1200],
      logger: log.logger,
    });
    const login = session.login();
    await new Promise((r) => setTimeout(r, 150));
    await repoOn(port);
    await login;
    expect(session.state.kind).toBe("active");
    expect(session.stats.logins).toBe(1);
    expect(log.lines.join("")).toContain("sign-in failed to reach the service; trying again");
  });

  it("a re-login after a 401 survives a dropped connection", async () => {
    const repo = await repoOn(undefined, true);
    const session = open({ url: repo.url, signInRetryDelaysMs: [50, 100] });
    await session.login();
    const row = repo.svc.db.prepare("SELECT token FROM tokens WHERE revoked = 0").get() as { token: string };
    revokeToken(repo.svc.db, row.token);
    repo.faults?.resetNext("/api/accesstoken/login");
    expect((await details(session)).data.userName).toBe("manager");
    expect(repo.faults?.hits.map((h) => h.action)).toEqual(["reset"]);
    expect(session.stats).toMatchObject({ logins: 2, reloginsAfter401: 1 });
  });

  it("does not retry refused credentials, and for a while answers without asking the service again", async () => {
    const repo = await repoOn();
    const log = captureLog();
    const session = open({ url: repo.url, password: "wrong-pw-123", logger: log.logger });
    const err = (await session.login().catch((e: unknown) => e)) as SignInFailed;
    expect(err).toBeInstanceOf(SignInFailed);
    expect(err.problem).toBe("credentials-refused");
    expect(err.message).toContain(repo.url);
    expect(err.message).toMatch(/PRESERVATION_USERNAME or PRESERVATION_PASSWORD/);
    expect(err.message).not.toContain("wrong-pw-123");
    await expect(details(session)).rejects.toBe(err);
    await expect(details(session)).rejects.toBe(err);
    const loginRequests = log.lines.filter(
      (l) => l.includes('"service request"') && l.includes('"operation":"auth.login"'),
    );
    expect(loginRequests).toHaveLength(1);
    expect(session.signInFailure).toBe(err);
  });
});

describe("an unreachable service", () => {
  it("fails with the reason, the URL without secrets and PRESERVATION_URL; the next request tries again", async () => {
    const port = await freePort();
    const session = open({
      url: `http://127.0.0.1:${port}/?apikey=hush-hush`,
      signInRetryDelaysMs: [300, 300],
    });
    const err = (await details(session).catch((e: unknown) => e)) as SignInFailed;
    expect(err).toBeInstanceOf(SignInFailed);
    expect(err.problem).toBe("unreachable");
    expect(err.message).toContain(`http://127.0.0.1:${port} cannot be reached (connection refused`);
    expect(err.message).toContain("PRESERVATION_URL");
    expect(err.message).not.toContain("hush-hush");
    expect(session.signInFailure).toBe(err);
    // Found unreachable already: the next call tries once, and answers at once while it stays so.
    const started = Date.now();
    await expect(details(session)).rejects.toMatchObject({ problem: "unreachable" });
    expect(Date.now() - started).toBeLessThan(250);

    await repoOn(port);
    expect((await details(session)).data.userName).toBe("manager");
    expect(session.signInFailure).toBeUndefined();
  });
});

describe("displayUrl", () => {
  it("drops credentials, query string, fragment and trailing slash", () => {
    expect(displayUrl("https://me:secret@eu.example.com:8443/preservica/?token=x#frag")).toBe(
      "https://eu.example.com:8443/preservica",
    );
    expect(displayUrl("http://127.0.0.1:8080")).toBe("http://127.0.0.1:8080");
    expect(displayUrl("not a url secret")).toBe("(an invalid URL)");
  });
});
