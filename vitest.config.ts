import { defineConfig } from "vitest/config";

/**
 * Test files that need a process of their own. Every other file shares its worker's module cache with the files
 * that ran there before it (`isolate: false`): a fresh process per file imported our sources, the MCP SDK,
 * zod, hono and libsql again each time, which was over half of the suite's time on 2 cores.
 * - serve.test.ts mocks node:crypto (vi.mock), which reaches only modules imported after the mock.
 * - content-writes.test.ts measures the process's heap while it streams 64 MiB, with a full garbage
 *   collection every 100 ms (--expose-gc set at run time): other files' modules would be in that heap.
 */
const OWN_PROCESS = ["test/serve.test.ts", "test/repository/writes/content-writes.test.ts"];

const shared = {
  testTimeout: 20_000,
  hookTimeout: 60_000,
  // Tests start real service processes on loopback.
  pool: "forks",
} as const;

export default defineConfig({
  test: {
    // Seeded stores made once per run, copied by each file's repository (test/helpers/templates.ts). Set here
    // only: the root's global setup runs once for both projects (a project would run its own again).
    globalSetup: ["test/global-setup.ts"],
    // Two workers in all, matching the CI machines' two cores.
    maxWorkers: 2,
    projects: [
      {
        test: {
          ...shared,
          name: "shared",
          include: ["test/**/*.test.ts"],
          exclude: OWN_PROCESS,
          isolate: false,
          // Puts back what one file could leave for the next, and removes its temporary folders: see the files.
          setupFiles: ["test/helpers/shared-process.ts", "test/helpers/file-end.ts"],
        },
      },
      {
        test: {
          ...shared,
          name: "own-process",
          include: OWN_PROCESS,
          isolate: true,
          setupFiles: ["test/helpers/file-end.ts"],
        },
      },
    ],
  },
});
