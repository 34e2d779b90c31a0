import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";

/**
 * The CLI as shipped: the bundled entry point `bin` names (npm test builds it first: see the pretest script).
 * test/cli-bundle.test.ts checks it behaves as dist/src/cli.js, which the in-process tests exercise.
 */
export const CLI = fileURLToPath(new URL("../../dist/bundle/preservation-mcp.cjs", import.meta.url));

export interface SpawnedRepository {
  url: string;
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** SIGTERM and wait for exit; resolves to the exit code. */
  stop(): Promise<number | null>;
}

/** Every service process started here, so a failed test cannot leave one running (see stopAllSpawned). */
const spawned = new Set<ChildProcess>();

/** Stops whatever spawnRepository started and is still running: call it in afterAll. */
export async function stopAllSpawned(): Promise<void> {
  await Promise.all(
    [...spawned].map(async (child) => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        await once(child, "exit");
      }
      spawned.delete(child);
    }),
  );
}

/** Starts `preservation-mcp repository` as a real process and waits for its `listening on` line. */
export async function spawnRepository(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<SpawnedRepository> {
  const child = spawn(process.execPath, [CLI, "repository", "--port", "0", ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  spawned.add(child);
  child.once("exit", () => spawned.delete(child));
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => {
    out += d;
  });
  child.stderr.setEncoding("utf8").on("data", (d: string) => {
    err += d;
  });
  const url = await new Promise<string>((resolve, reject) => {
    const onData = () => {
      // The banner ends with "ready in N ms"; wait for all of it so callers can read it.
      const first = out.split("\n")[0];
      if (/ready in \d+ ms.*\n/.test(out) && first !== undefined) {
        const m = first.match(/^listening on (http:\/\/\S+)$/);
        child.stdout.off("data", onData);
        if (m?.[1]) resolve(m[1]);
        else reject(new Error(`unexpected first line: ${first}`));
      }
    };
    child.stdout.on("data", onData);
    child.once("exit", (code) => reject(new Error(`repository exited (${code}) before listening: ${err}`)));
  });
  return {
    url,
    child,
    stdout: () => out,
    stderr: () => err,
    async stop() {
      if (child.exitCode !== null) return child.exitCode;
      child.kill("SIGTERM");
      const [code] = await once(child, "exit");
      return code as number | null;
    },
  };
}

/**
 * Runs the CLI to completion and returns its exit code and output; `cli` and `env` pick another entry point
 * (dist/src/cli.js) or a clean environment (default: this one's).
 */
export async function runCli(
  args: string[],
  { cli = CLI, env }: { cli?: string; env?: Record<string, string> } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [cli, ...args], {
    env: env ?? process.env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => {
    stdout += d;
  });
  child.stderr.setEncoding("utf8").on("data", (d: string) => {
    stderr += d;
  });
  const [code] = await once(child, "exit");
  return { code: code as number | null, stdout, stderr };
}
