import { defineConfig } from "vitest/config";

// Integration tests start real Chromium, the fixture site and the reference model; the
// machine has two cores, so files run in at most two forks. The timeouts are hang guards, not
// timing assertions: several set-up hooks play whole runs (divergence's two runs failed its
// set-up at load 22 under the old 120 s), and a test must never fail for being slow on a busy
// machine, so both are 10 minutes.
//
// Unit tests share their fork's module graph (isolate: false): they touch no process-wide state
// (no env writes, mocks, fake timers or signal handlers), and importing src/ afresh for each of
// 77 files cost the unit run 116 CPU s, against 38 without it. Integration tests keep a fresh module
// graph per file: they run the CLI in-process, which installs signal handlers and reads the env.
export default defineConfig({
  // The fixture suite's checks import the public API by the package's name, as a user's checks do;
  // in this checkout that is the source (tsconfig.json maps it the same way).
  resolve: { alias: { "umpire/checks": new URL("./src/checks/custom-api.ts", import.meta.url).pathname } },
  test: {
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 600_000,
    hookTimeout: 600_000,
    reporters: ["default"],
    projects: [
      { extends: true, test: { name: "unit", include: ["test/unit/**/*.test.ts"], isolate: false } },
      { extends: true, test: { name: "integration", include: ["test/integration/**/*.test.ts"] } },
    ],
  },
});
