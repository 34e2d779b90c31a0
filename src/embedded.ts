import type { Logger } from "pino";
import { DEFAULT_DEMO_PASSWORDS, type DemoPasswords } from "../repository/seed/users.js";
import { type RunningRepository, startRepository } from "../repository/server.js";
import { type Config, ConfigError } from "./config.js";

/**
 * The embedded default: with no PRESERVATION_URL, the repository service runs in this process on a free
 * loopback port, with the demo collection in the per-user data directory, and the MCP server signs in to it
 * as a demo user. Only composition happens here: the service stays an independent peer over HTTP.
 */
export const EMBEDDED_DEFAULT_USER = "curator";

export interface EmbeddedTarget {
  repository: RunningRepository;
  url: string;
  username: string;
  password: string;
}

export async function startEmbedded(config: Config, log: Logger): Promise<EmbeddedTarget> {
  const username = config.username ?? EMBEDDED_DEFAULT_USER;
  const demoPassword = DEFAULT_DEMO_PASSWORDS[username as keyof DemoPasswords];
  const password = config.password ?? demoPassword;
  if (!password) {
    // A configuration mistake like any other: exit code 2, one line naming the setting as it was given.
    throw new ConfigError(
      `${config.names.PRESERVATION_USERNAME ?? "PRESERVATION_USERNAME"} "${username.slice(0, 100)}" is not a demo user of the embedded service; set PRESERVATION_PASSWORD or use one of ${Object.keys(DEFAULT_DEMO_PASSWORDS).join(", ")}`,
    );
  }
  const repository = await startRepository({
    host: "127.0.0.1",
    port: 0,
    dataDir: config.dataDir,
    seed: "demo",
  });
  log.info(
    { url: repository.url, dataDir: config.dataDir, user: username, seeded: repository.seeded },
    `embedded repository service at ${repository.url} (demo collection in ${config.dataDir}); signing in as demo user "${username}"`,
  );
  return { repository, url: repository.url, username, password };
}
