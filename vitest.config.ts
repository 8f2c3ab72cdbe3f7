import { defineConfig } from "vitest/config";

// Integration tests start real Chromium, the fixture site and the reference model; the
// machine has two cores, so files run in at most two forks and get generous timeouts.
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 180_000,
    hookTimeout: 120_000,
    reporters: ["default"],
  },
});
