// Child processes for the benchmarks: started, awaited until they say they are ready, and stopped.
import { spawn } from "node:child_process";

/**
 * Spawns `command` and resolves once `pattern` appears on the given stream (its first group as `match`). The
 * other stream goes to this process's stderr when it is stderr (a pipe nobody reads would stall a chatty child).
 */
export function spawnUntil(command, args, env, stream, pattern) {
  const child = spawn(command, args, {
    env,
    stdio: ["ignore", "pipe", stream === "stderr" ? "pipe" : "inherit"],
  });
  return new Promise((resolve, reject) => {
    let text = "";
    child[stream].setEncoding("utf8").on("data", (d) => {
      text += d;
      const m = text.match(pattern);
      if (m) resolve({ child, match: m[1] });
    });
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`${args[0] ?? command} exited with ${code}: ${text}`)));
  });
}

/** `cli repository --port 0 …args`, resolved with the process and its URL once it says it is listening. */
export async function startRepository(cli, args, env = process.env) {
  const { child, match } = await spawnUntil(
    process.execPath,
    [cli, "repository", "--port", "0", ...args],
    env,
    "stdout",
    /^listening on (\S+)\n/,
  );
  return { child, url: match };
}

/** SIGTERM, resolved once the process has exited. */
export function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", resolve);
    child.kill("SIGTERM");
  });
}
