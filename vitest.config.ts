import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Seeded stores made once per run, copied by each file's repository (test/helpers/templates.ts).
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    // Tests start real service processes on loopback; two workers match the CI machines' two cores.
    pool: "forks",
    maxWorkers: 2,
  },
});
