import { defineConfig } from "vitest/config";

// Workspace packages are resolved to their TypeScript sources in tests (the "@mteja/source" export
// condition), so the suite never runs against a stale build.
// (Vite's default server conditions follow the project's own.)
const conditions = ["@mteja/source", "module", "node", "development|production"];

const unitTests = ["packages/*/test/**/*.test.ts", "apps/demo/test/**/*.test.ts", "apps/daraja-sim/test/**/*.test.ts", "apps/sms-sim/test/**/*.test.ts", "apps/google-sim/test/**/*.test.ts", "apps/captcha-sim/test/**/*.test.ts", "scripts/test/*.test.ts", "bench/test/*.test.ts"];
const apiTests = ["apps/api/test/**/*.test.ts"];
// Each API file starts from the fixtures' default options, whatever the file before it set.
const apiSetup = ["apps/api/test/support/file-defaults.ts"];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    reporters: ["default"],
    testTimeout: 30_000,
    // Two files at a time on the 2-core CI machine (vitest's default there is one): most of an API test
    // file's time is spent waiting on PostgreSQL, timers and child processes, not on a core. Every file
    // has its own database, listens on port 0 and keeps its own Redis key prefix, so two can run at once.
    maxWorkers: 2,
    // Files share their worker's module cache instead of importing the whole service again each
    // (vitest's isolation cost half of .ci/run: 499 s of imports). Safe because nothing in the service
    // keeps module-level state (the composition root builds everything per app), and each file builds
    // its own app, database and clock; a file that patches a global restores it in its own hooks.
    isolate: false,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: "unit", include: unitTests } },
      { extends: true, test: { name: "embedded", include: apiTests, setupFiles: apiSetup, env: { MTEJA_TEST_DB: "embedded" } } },
      {
        extends: true,
        // One migrated database for the run, each file's database a copy of it.
        test: { name: "postgres", include: apiTests, setupFiles: apiSetup, globalSetup: ["packages/test-support/src/postgres-template.ts"], env: { MTEJA_TEST_DB: "postgres" } },
      },
    ],
  },
});
