import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningRepository } from "../../repository/server.js";
import { insertEntity } from "../../repository/store/entities/write.js";
import { startTestRepository } from "../helpers/repository.js";
import {
  type AnyClient,
  childEnv,
  connectHttp,
  killStragglers,
  remoteEnv,
  type SpawnedCli,
  startHttp,
} from "./helpers.js";

afterAll(killStragglers);

/**
 * Horizontal scale (issue 13 §3, §5): two separate server processes behind one URL, as a load balancer would
 * spread a conversation over them, sharing only PRESERVATION_CONFIRM_KEY. A confirmation token issued by one
 * is accepted by the other, once; the job handle one returns is followed on the other; a third process with
 * another key refuses the token.
 */

const KEY = "scale-test-confirm-key-0123456789abcdef";

describe.each(["v1", "v2"] as const)("two instances with one key (%s client)", (era) => {
  let repo: RunningRepository;
  let a: SpawnedCli & { url: string };
  let b: SpawnedCli & { url: string };
  let other: SpawnedCli & { url: string };
  let onA: AnyClient;
  let onB: AnyClient;
  let onOther: AnyClient;

  beforeAll(async () => {
    repo = await startTestRepository({ seed: "none" });
    const env = (key: string) =>
      childEnv({ ...remoteEnv(repo.url, "manager"), PRESERVATION_CONFIRM_KEY: key });
    [a, b, other] = await Promise.all([
      startHttp([], env(KEY)),
      startHttp([], env(KEY)),
      startHttp([], env("another-confirm-key-0123456789abcdef")),
    ]);
    [onA, onB, onOther] = await Promise.all([
      connectHttp(era, a.url),
      connectHttp(era, b.url),
      connectHttp(era, other.url),
    ]);
  }, 60_000);
  afterAll(async () => {
    for (const c of [onA, onB, onOther]) await c?.close().catch(() => {});
    for (const s of [a, b, other]) await s?.stop();
    await repo?.close();
  });

  it("a token from A is refused by another key, accepted by B once; B's job handle is followed on A", async () => {
    const db = repo.svc.db;
    const from = insertEntity(db, {
      type: "SO",
      title: "Estate papers",
      securityTag: "open",
      parentRef: null,
    });
    insertEntity(db, { type: "IO", title: "Letter", securityTag: "open", parentRef: from.ref });
    const to = insertEntity(db, {
      type: "SO",
      title: "Family archive",
      securityTag: "open",
      parentRef: null,
    });
    const args = { ref: from.ref, destination: to.ref };

    const preview = await onA.call("move_entity", args);
    const token = (preview.structured as { confirmationRequired?: { token?: string } }).confirmationRequired
      ?.token;
    expect(token).toBeTruthy();

    const stranger = await onOther.call("move_entity", { ...args, confirmation: token });
    expect(stranger.isError).toBe(true);
    expect(stranger.text).toMatch(/confirm/i);

    const done = await onB.call("move_entity", { ...args, confirmation: token });
    expect(done.isError).toBe(false);
    const job = (done.structured as { job: string }).job;
    expect(job).toMatch(/^[0-9a-f-]{36}$/);

    const again = await onA.call("move_entity", { ...args, confirmation: token });
    expect(again.isError).toBe(true);

    let state = "";
    for (let i = 0; i < 100 && !/complet/i.test(state); i++) {
      const status = await onA.call("job_status", { job, waitSeconds: 1 });
      expect(status.isError).toBe(false);
      state = (status.structured as { state: string }).state;
    }
    expect(state).toMatch(/complet/i);
    const row = db.prepare("SELECT parent_ref FROM entities WHERE ref = ?").get(from.ref) as {
      parent_ref: string;
    };
    expect(row.parent_ref).toBe(to.ref);
  }, 60_000);
});
