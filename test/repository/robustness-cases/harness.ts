import { expect, type MockInstance, vi } from "vitest";
import { ensureFileText } from "../../../repository/search/file-text.js";
import type { RunningRepository } from "../../../repository/server.js";
import { startTestRepository } from "../../helpers/repository.js";
import type { Case, CaseModule, RawWrite } from "./case.js";
import { fill, send, sendRaw, target } from "./client.js";
import { makeFixtures } from "./fixtures.js";
import { checkReply, errorMessage } from "./reply-checks.js";
import { storedState, writeState } from "./stored-state.js";

/**
 * The one service the whole table runs against, with its fixtures, and the checks around each case: the
 * reply's (reply-checks.ts), that the service still serves and logged no internal error, and that the case
 * changed nothing stored.
 */
export interface Harness {
  repo: RunningRepository;
  /** What is stored before the first case: the last test compares the end with it. */
  before: ReturnType<typeof storedState>;
  /** How many internal errors the service has logged so far. */
  logged(): number;
  /** After a case: the service answers a normal request, and logged no internal error since `loggedBefore`. */
  stillServing(name: string, loggedBefore: number): Promise<void>;
  close(): Promise<void>;
}

/** Starts the service on a copy of the demo store, makes every area's fixtures, and takes the stored state. */
export async function startHarness(areas: readonly CaseModule[]): Promise<Harness> {
  const repo = await startTestRepository({ seed: "demo" });
  await makeFixtures(repo);
  for (const m of areas) {
    Object.assign(
      target.fx,
      await m.fixtures?.({ url: repo.url, token: target.fx.token as string, svc: repo.svc }),
    );
  }
  // The search index reads files' words (PDFs too) at the first text search: a derived index, brought up
  // to date here so that junk requests that search are not taken for writes.
  await ensureFileText(repo.svc.db, repo.svc.content);
  const before = storedState(repo.svc);
  /** The service logs every 500 it answers (and every one it could not deliver) with console.error. */
  const errorLog: MockInstance<typeof console.error> = vi.spyOn(console, "error");
  return {
    repo,
    before,
    logged: () => errorLog.mock.calls.length,
    async stillServing(name, loggedBefore) {
      const r = await send({ name: "health", path: "/api/entity/information-objects/{io}" });
      expect(r.status, `a normal request after ${name}`).toBe(200);
      const logged = errorLog.mock.calls
        .slice(loggedBefore)
        .map((args) => args.map(String).join(" ").slice(0, 300));
      expect(logged, `internal errors logged during ${name}`).toEqual([]);
    },
    async close() {
      errorLog.mockRestore();
      await repo.close();
    },
  };
}

/** One case of the table: its reply, what it must say, still serving, nothing written. */
export async function runCase(h: Harness, areas: readonly CaseModule[], c: Case): Promise<void> {
  const logged = h.logged();
  const state = writeState(h.repo.svc.db);
  const r = await send(c);
  if (!c.knownDefect) checkReply(c.name, c.method ?? "GET", r, fill(c.path));
  for (const m of areas) m.replyShape?.(c, r);
  if (c.expect)
    expect(c.expect, `${c.name}: got ${r.status} ${r.body.toString("utf8").slice(0, 200)}`).toContain(
      r.status,
    );
  if (c.message) expect(errorMessage(r, fill(c.path)), c.name).toMatch(c.message);
  await h.stillServing(c.name, logged);
  expect(writeState(h.repo.svc.db), `${c.name} changed the store`).toBe(state);
}

/** One raw write: whatever the lie in its Content-Length, an answer or a close within 3 s, and nothing written. */
export async function runRawWrite(h: Harness, [name, text, statuses, message]: RawWrite): Promise<void> {
  const logged = h.logged();
  const state = writeState(h.repo.svc.db);
  // A shorter length is a whole request to the server: it answers before the client goes.
  const r = await sendRaw(text, 3000, name.endsWith("shorter"));
  const answer = r.body.toString("utf8");
  expect(statuses, `${name}: got ${r.status} ${answer.slice(0, 200)}`).toContain(r.status);
  checkReply(name, "POST", r);
  if (message) expect(answer, name).toMatch(message);
  await h.stillServing(name, logged);
  expect(writeState(h.repo.svc.db), `${name} changed the store`).toBe(state);
}
