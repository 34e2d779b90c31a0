import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * No e-mail leaves the machine: messages the service would send (challenge codes) are written as
 * RFC 822-style text files to `<data dir>/outbox/`, one file per message, named
 * `<epoch ms>-<username>.eml`, so a person (or a test) can read the code from there.
 */
export function outboxDir(dataDir: string): string {
  return join(dataDir, "outbox");
}

export function sendMail(
  dataDir: string,
  to: { username: string; email: string },
  subject: string,
  body: string,
) {
  const dir = outboxDir(dataDir);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${Date.now()}-${to.username}.eml`);
  writeFileSync(
    file,
    `To: ${to.email}\nFrom: repository@localhost\nSubject: ${subject}\nDate: ${new Date().toUTCString()}\n\n${body}\n`,
  );
  return file;
}
