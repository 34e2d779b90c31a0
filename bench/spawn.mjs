// Child processes for the benchmarks: started, awaited until they say they are ready, and stopped.
import { spawn } from "node:child_process";

/** Spawns `command` and resolves once `pattern` appears on the given stream (its first group as `match`). */
export function spawnUntil(command, args, env, stream, pattern) {
  const child = spawn(command, args, { env, stdio: ["ignore", "pipe", "pipe"] });
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

/** SIGTERM, resolved once the process has exited. */
export function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", resolve);
    child.kill("SIGTERM");
  });
}
