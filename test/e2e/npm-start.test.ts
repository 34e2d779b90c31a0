import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { childEnv, demoDataDir } from "./helpers.js";

/**
 * `npm start` as a service manager or a terminal stops it: SIGTERM to npm. npm forwards the signal to the
 * script's shell, and `sh -c "node …"` (dash) does not pass it on: the shell dies and node would be left
 * running, orphaned, still holding its port. A server npm started stops when its parent is gone.
 */

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function gone(pid: number, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (!alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return !alive(pid);
}

describe.skipIf(process.platform === "win32")("npm start", () => {
  const data = demoDataDir();
  let server: number | undefined;
  afterAll(() => {
    if (server && alive(server)) process.kill(server, "SIGKILL");
    data.cleanup();
  });

  it("stops the server when npm gets SIGTERM", async () => {
    const npm = spawn("npm", ["start", "--", "--port", "0"], {
      cwd: ROOT,
      env: childEnv({ PRESERVATION_DATA_DIR: data.dir }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    const exited = once(npm, "exit");
    let err = "";
    npm.stdout?.resume();
    // The server's log names its own pid (npm's child may be a shell, or node itself).
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no "listening on" in 20 s:\n${err}`)), 20_000);
      npm.stderr?.setEncoding("utf8").on("data", (d: string) => {
        err += d;
        const listening = err.match(/^listening on (http:\/\/\S+\/mcp)$/m);
        if (listening?.[1]) {
          clearTimeout(timer);
          resolve(listening[1]);
        }
      });
      void exited.then(() => reject(new Error(`npm exited before listening:\n${err}`)));
    });
    server = Number(err.match(/"pid":(\d+).*"msg":"MCP over Streamable HTTP/)?.[1]);
    expect(server, err).toBeGreaterThan(0);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);

    npm.kill("SIGTERM");
    await exited;
    expect(await gone(server, 10_000), "the server outlived npm").toBe(true);
    await expect(fetch(url, { method: "POST" })).rejects.toThrow();
  });
});
