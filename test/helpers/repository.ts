import { type RepositoryOptions, type RunningRepository, startRepository } from "../../repository/server.js";
import { copyOfTemplate, TEMPLATE_SEEDS, type TemplateSeed } from "./templates.js";

/**
 * Starts a repository service in-process on a free loopback port (real HTTP) for one test file. A temporary
 * store seeded "demo" or "none" starts from a copy of the run's template (test/global-setup.ts) rather than
 * being made again; its own clock or passwords would make a different store, so those are seeded as before.
 */
export async function startTestRepository(opts: RepositoryOptions = {}): Promise<RunningRepository> {
  const seed = opts.seed ?? "none";
  const fromTemplate =
    opts.dataDir === undefined &&
    opts.now === undefined &&
    opts.passwords === undefined &&
    (TEMPLATE_SEEDS as readonly unknown[]).includes(seed)
      ? copyOfTemplate(seed as TemplateSeed)
      : undefined;
  if (!fromTemplate) return startRepository({ port: 0, host: "127.0.0.1", ...opts, seed });
  try {
    const repo = await startRepository({
      port: 0,
      host: "127.0.0.1",
      ...opts,
      seed,
      dataDir: fromTemplate.dir,
    });
    return {
      ...repo,
      async close() {
        await repo.close();
        fromTemplate.remove();
      },
    };
  } catch (err) {
    fromTemplate.remove();
    throw err;
  }
}

export const DEMO_USERS = {
  manager: { username: "manager", password: "manager-demo-pw" },
  curator: { username: "curator", password: "curator-demo-pw" },
  reader: { username: "reader", password: "reader-demo-pw" },
  guest: { username: "guest", password: "guest-demo-pw" },
  twofactor: { username: "twofactor", password: "twofactor-demo-pw" },
} as const;
export type DemoUser = keyof typeof DEMO_USERS;

export interface LoginResult {
  success: boolean;
  token: string;
  "refresh-token": string;
  validFor: number;
  user: string;
  [key: string]: unknown;
}

/** Logs a demo user in over HTTP and returns the parsed login result; throws on failure. */
export async function login(
  baseUrl: string,
  who: DemoUser,
  extra: Record<string, string> = {},
): Promise<LoginResult> {
  const res = await fetch(`${baseUrl}/api/accesstoken/login`, {
    method: "POST",
    body: new URLSearchParams({ ...DEMO_USERS[who], ...extra }),
  });
  if (res.status !== 200) throw new Error(`login as ${who} failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as LoginResult;
}

/** A fetch bound to a token: `get(path)` with the Preservica-Access-Token header. */
export function authed(baseUrl: string, token: string) {
  return (path: string, init: RequestInit = {}) =>
    fetch(`${baseUrl}${path}`, {
      ...init,
      headers: { "Preservica-Access-Token": token, ...(init.headers as Record<string, string> | undefined) },
    });
}
