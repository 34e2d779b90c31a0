import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, readdirSync, watch } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { CLI, runCli, spawnRepository, stopAllSpawned } from "../helpers/process.js";
import { authed, login } from "../helpers/repository.js";
import { tempDir } from "../helpers/temp-dir.js";

describe("the repository service process", () => {
  const dataDir = tempDir("repo-process-test-");
  afterAll(async () => {
    await stopAllSpawned();
  });

  it("prints its URL first, seeds once, keeps data and tokens across a restart, and stops cleanly on SIGTERM", async () => {
    const first = await spawnRepository(["--data", dataDir, "--seed", "demo"]);
    expect(first.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(first.stdout()).toContain("(seeded)");
    const { token } = await login(first.url, "manager");
    const before = await (await authed(first.url, token)("/api/entity/root/children")).text();
    expect(await first.stop()).toBe(0);

    const second = await spawnRepository(["--data", dataDir, "--seed", "demo"]);
    try {
      expect(second.stdout()).not.toContain("(seeded)");
      // The token issued before the restart is still valid: tokens live in the database.
      const after = await (await authed(second.url, token)("/api/entity/root/children")).text();
      expect(after.replaceAll(second.url, "X")).toBe(before.replaceAll(first.url, "X"));
    } finally {
      expect(await second.stop()).toBe(0);
    }
  });

  it("seeds once when two processes start on one empty data directory at the same moment", async () => {
    const shared = tempDir("repo-race-test-");
    const [a, b] = await Promise.all([
      spawnRepository(["--data", shared, "--seed", "demo"]),
      spawnRepository(["--data", shared, "--seed", "demo"]),
    ]);
    try {
      expect([a.stdout(), b.stdout()].filter((o) => o.includes("(seeded)"))).toHaveLength(1);
      const { token } = await login(a.url, "manager");
      const totals = await Promise.all(
        [a.url, b.url].map(async (url) => {
          const res = await authed(url, token)("/api/content/search?q=%25&max=1");
          return ((await res.json()) as { value: { totalHits: number } }).value.totalHits;
        }),
      );
      expect(totals[0]).toBeGreaterThan(0);
      expect(totals[1]).toBe(totals[0]);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });

  it("removes its temporary data directory however it is stopped: Ctrl-C, a kill, its terminal closing", async () => {
    await Promise.all(
      (["SIGINT", "SIGTERM", "SIGHUP"] as const).map(async (signal) => {
        const repo = await spawnRepository(["--seed", "none"]);
        const dir = repo.stdout().match(/^data: (.+) \(temporary, removed on exit\)$/m)?.[1] ?? "";
        expect(existsSync(dir), repo.stdout()).toBe(true);
        const exited = once(repo.child, "exit");
        repo.child.kill(signal);
        const [code, killedBy] = await exited;
        expect({ signal, code, killedBy, left: existsSync(dir) }).toEqual({
          signal,
          code: 0,
          killedBy: null,
          left: false,
        });
      }),
    );
  });

  it("removes its temporary data directory when stopped while it is still starting (seeding)", async () => {
    const tmp = tempDir("repo-early-stop-");
    const made = new Promise<void>((resolve) => {
      const watcher = watch(tmp, (_, name) => {
        if (!String(name).startsWith("preservation-repo-")) return;
        watcher.close();
        resolve();
      });
    });
    // 2,000 synthetic entities: near a second of seeding between the folder being made and the port opening.
    const child = spawn(process.execPath, [CLI, "repository", "--port", "0", "--seed", "2000"], {
      env: { ...process.env, TMPDIR: tmp },
      stdio: "ignore",
    });
    await made;
    const exited = once(child, "exit");
    child.kill("SIGTERM");
    const [code, killedBy] = await exited;
    expect({ code, killedBy, left: readdirSync(tmp) }).toEqual({ code: 0, killedBy: null, left: [] });
  });

  it("honours password overrides from the environment", async () => {
    const repo = await spawnRepository(["--seed", "none"], {
      PRESERVATION_DEMO_READER_PASSWORD: "s3cret-reader",
    });
    try {
      expect(repo.stdout()).not.toContain("s3cret-reader");
      const res = await fetch(`${repo.url}/api/accesstoken/login`, {
        method: "POST",
        body: new URLSearchParams({ username: "reader", password: "s3cret-reader" }),
      });
      expect(res.status).toBe(200);
      const old = await fetch(`${repo.url}/api/accesstoken/login`, {
        method: "POST",
        body: new URLSearchParams({ username: "reader", password: "reader-demo-pw" }),
      });
      expect(old.status).toBe(401);
    } finally {
      await repo.stop();
    }
  });

  it("adds --latency to every answer, like a service across a network", async () => {
    const repo = await spawnRepository(["--seed", "none", "--latency", "250"]);
    try {
      const t0 = performance.now();
      const res = await fetch(`${repo.url}/api/accesstoken/login`, {
        method: "POST",
        body: new URLSearchParams({ username: "reader", password: "reader-demo-pw" }),
      });
      expect(res.status).toBe(200);
      expect(performance.now() - t0).toBeGreaterThanOrEqual(240);
    } finally {
      await repo.stop();
    }
  });

  it("keeps serving when whoever read the first line closes the pipe (| head -1)", async () => {
    // The shell pipeline in its own process group, so the test can stop all of it.
    const sh = spawn(
      "sh",
      ["-c", `"${process.execPath}" "${CLI}" repository --port 0 --seed none | head -1`],
      {
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
      },
    );
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = "";
        sh.stdout.setEncoding("utf8").on("data", (d: string) => {
          out += d;
          const m = out.match(/^listening on (\S+)\n/);
          if (m?.[1]) resolve(m[1]);
        });
        sh.once("exit", () => reject(new Error(`the service exited: ${out}`)));
      });
      // head has exited and closed the pipe; the banner written after the first line met EPIPE.
      await new Promise((r) => setTimeout(r, 500));
      const res = await fetch(`${url}/api/accesstoken/login`, {
        method: "POST",
        body: new URLSearchParams({ username: "reader", password: "reader-demo-pw" }),
      });
      expect(res.status).toBe(200);
    } finally {
      if (sh.pid) process.kill(-sh.pid, "SIGTERM");
    }
  });

  it("rejects bad flags with one line that names the flag", async () => {
    for (const [args, pattern] of [
      [["repository", "--seed", "lots"], /--seed must be/],
      [["repository", "--token-ttl", "soon"], /--token-ttl must be a duration/],
      [["repository", "--port", "99999"], /--port must be/],
      [["repository", "--bogus"], /bogus/],
      [["repository", "--latency", "soon"], /--latency must be/],
    ] as const) {
      const r = await runCli([...args]);
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr).toMatch(pattern);
      expect(r.stdout).toBe("");
    }
  });
});
