import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";

/**
 * A real `redis-server` (Debian's package) on a free loopback port, nothing persisted (`--save ""`,
 * `--appendonly no`): one per test file, stopped in afterAll. `kill()` takes it away mid-run (SIGKILL, as a
 * crash would) and `start()` brings a fresh one back on the same port.
 */
export interface TestRedis {
  url: string;
  port: number;
  /** Starts it again on the same port (empty: nothing was saved). */
  start(): Promise<void>;
  /** SIGKILL, and waits until it is gone. */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function launch(port: number): Promise<ChildProcess> {
  const child = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let out = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis-server did not start in 10 s:\n${out}`)), 10_000);
    const look = (d: Buffer) => {
      out += d.toString();
      if (/Ready to accept connections/i.test(out)) {
        clearTimeout(timer);
        child.stdout?.off("data", look);
        resolve();
      }
    };
    child.stdout?.on("data", look);
    child.once("error", (err) => {
      clearTimeout(timer);
      reject(
        new Error(`redis-server could not be started (is it installed? .ci/run installs it): ${err.message}`),
      );
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited (${code}) before it was ready:\n${out}`));
    });
  });
  // Drained, so a chatty server never blocks on a full pipe.
  child.stdout?.resume();
  child.stderr?.resume();
  return child;
}

export async function startRedis(): Promise<TestRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined = await launch(port);
  const kill = async () => {
    const c = child;
    child = undefined;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const gone = once(c, "exit");
    c.kill("SIGKILL");
    await gone;
  };
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async start() {
      await kill();
      child = await launch(port);
    },
    kill,
    stop: kill,
  };
}
