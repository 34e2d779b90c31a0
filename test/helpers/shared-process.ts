import { afterAll } from "vitest";

/**
 * Runs before each test file of the "shared" project (vitest.config.ts), where files run one after another in
 * one process, so that a file finds the process as a process of its own would give it.
 *
 * Node's fetch uses whatever dispatcher the first HTTP client installed on globalThis: its own, or that of the
 * `undici` package, which src/api/http.ts imports and which installs itself when it finds none. The package's
 * refuses a Content-Length header that Node's own accepts (test/repository/pypreservica-writes.test.ts sends
 * one), so which one a file got depended on which file ran first in its process. Node's own, always: loading
 * fetch installs it, and the package then leaves it in place.
 */
void fetch("data:,").catch(() => {});

/** Environment variables a file sets and forgets (a failed assertion before its clean-up) are put back. */
const envAtStart = { ...process.env };
afterAll(() => {
  for (const name of Object.keys(process.env)) if (!(name in envAtStart)) delete process.env[name];
  Object.assign(process.env, envAtStart);
});
