import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../repository/server.js";
import { PersonSessions, sessionKeyOf } from "../../src/identity/people.js";
import { createLogger } from "../../src/log.js";
import { type Session, SignInRequired } from "../../src/session/session.js";
import { MemoryState } from "../../src/state/memory.js";
import { signInPerson } from "../helpers/people.js";
import { DEMO_USERS, startTestRepository } from "../helpers/repository.js";

/**
 * Each person's repository session as several instances of a team server hold it: two PersonSessions (two
 * instances) over one shared state, against a real repository service whose tokens live 3 s. The sign-in is
 * the Authentication API login the sign-in page makes. Time is moved with injected clocks, not waited for.
 */

const KEY = "people-test-key-0123456789abcdef0123456789";
const log = createLogger({ level: "silent" });
let repo: RunningRepository;

beforeAll(async () => {
  repo = await startTestRepository({ tokenTtlMs: 3000 });
});
afterAll(() => repo.close());

/** A request that really reaches the service with the session's token. */
async function details(session: Session): Promise<string> {
  const res = await session.http.request<{ userName?: string }>({
    path: "/api/user/details",
    accept: "application/json",
    operation: "user.details",
  });
  return String(res.data?.userName);
}

function people(state: MemoryState, clock?: () => number, maxSessionLifetimeMins = 480): PersonSessions {
  return new PersonSessions({
    state,
    confirmKey: KEY,
    url: repo.url,
    maxSessionLifetimeMins,
    logger: log,
    ...(clock ? { clock } : {}),
  });
}

describe("people's sessions across instances", () => {
  it("a token refreshed on one instance (the service revokes the old one) is taken up by the other", async () => {
    const state = new MemoryState();
    let skew = 0;
    const a = people(state, () => Date.now() + skew);
    const b = people(state);
    try {
      await signInPerson(a, repo.url, "pat", "reader");
      const onA = await a.sessionFor("pat");
      const onB = await b.sessionFor("pat");
      expect(await details(onA)).toBe("reader");
      expect(await details(onB)).toBe("reader");
      // Instance A's clock says the token is near its end: its next request refreshes it first.
      const state0 = onA.state;
      if (state0.kind !== "active") throw new Error("A holds no token");
      skew = Date.parse(state0.tokenExpiresAt) - 500 - Date.now();
      expect(await details(onA)).toBe("reader");
      expect(onA.stats.refreshes).toBe(1);
      // B still holds the revoked token: the service refuses it once, and B takes A's new grant from the store.
      expect(await details(onB)).toBe("reader");
      expect(onB.stats.reloginsAfter401).toBe(1);
      expect(onB.stats.logins).toBe(0);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("a sign-out on one instance ends the session the other holds", async () => {
    const state = new MemoryState();
    const a = people(state);
    const b = people(state);
    try {
      await signInPerson(a, repo.url, "quinn", "curator");
      expect(await details(await b.sessionFor("quinn"))).toBe("curator");
      await a.signOut("quinn");
      const after = await b.sessionFor("quinn");
      await expect(after.whoAmI()).rejects.toBeInstanceOf(SignInRequired);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("the session ends at the service's session lifetime: the person is asked again, and can sign in again", async () => {
    let skew = 0;
    const clock = () => Date.now() + skew;
    const state = new MemoryState(clock);
    const p = people(state, clock, 1);
    try {
      await signInPerson(p, repo.url, "rosa", "reader");
      const session = await p.sessionFor("rosa");
      expect(await details(session)).toBe("reader");
      skew = 61_000;
      const ended = await details(session).catch((e: unknown) => e);
      expect(ended).toBeInstanceOf(SignInRequired);
      expect((ended as SignInRequired).reason).toBe("ended");
      skew = 0;
      await signInPerson(p, repo.url, "rosa", "reader");
      expect(await details(await p.sessionFor("rosa"))).toBe("reader");
    } finally {
      await p.close();
    }
  });

  it("keeps the session sealed: no password or token in the clear, and it opens only with this deployment's key", async () => {
    const state = new MemoryState();
    const p = people(state);
    try {
      await signInPerson(p, repo.url, "sam", "reader");
      const stored = (await state.getValue(sessionKeyOf("sam"))) ?? "";
      expect(stored.startsWith("ps1.")).toBe(true);
      const tokens = (
        repo.svc.db.prepare("SELECT token, refresh_token FROM tokens WHERE username = 'reader'").all() as {
          token: string;
          refresh_token: string;
        }[]
      ).flatMap((r) => [r.token, r.refresh_token]);
      expect(tokens.length).toBeGreaterThan(0);
      for (const secret of [DEMO_USERS.reader.password, ...tokens]) expect(stored).not.toContain(secret);
      expect(stored).not.toContain("reader");
      expect(await details(await p.sessionFor("sam"))).toBe("reader");
      // Another key (another deployment) cannot open it: the person is simply not signed in there.
      const other = new PersonSessions({
        state,
        confirmKey: `${KEY}-other`,
        url: repo.url,
        maxSessionLifetimeMins: 480,
        logger: log,
      });
      await expect((await other.sessionFor("sam")).whoAmI()).rejects.toBeInstanceOf(SignInRequired);
      await other.close();
    } finally {
      await p.close();
    }
  });
});
