import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it, vi } from "vitest";
import { DEMO_USERS, startTestRepository } from "../helpers/repository.js";

/**
 * Stopping the service while a request is still being handled: the request must not reach the store after it
 * closed. A query on a closed libsql database panics and takes the whole process down (here: the test worker,
 * and every file sharing it), which is what a stalled request did when a test file ended under it.
 */
describe("stopping the service while a request is being handled", () => {
  it("ends a request waiting out an injected delay, closes after it, and nothing touches the closed store", async () => {
    const latencyMs = 800;
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const repo = await startTestRepository({ faults: { latencyMs } });
    const login = fetch(`${repo.url}/api/accesstoken/login`, {
      method: "POST",
      body: new URLSearchParams(DEMO_USERS.manager),
    }).then(
      (res) => res.status,
      (err: Error) => err.message,
    );
    await sleep(100); // the request is now waiting out its delay inside the service

    const stopping = performance.now();
    await repo.close();
    expect(performance.now() - stopping).toBeLessThan(latencyMs / 2);
    // The client's request ends without an answer from the store (its connection closed).
    expect(await login).not.toBe(200);

    // Past the delay: had the request gone on, it would have queried the closed database by now (an error
    // logged for it, or, with a statement prepared before the close, a libsql panic killing the process).
    await sleep(latencyMs);
    const logged = errors.mock.calls.map((args) => args.map(String).join(" "));
    errors.mockRestore();
    expect(logged.filter((line) => /database|not open/i.test(line))).toEqual([]);
  });
});
