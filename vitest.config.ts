import { defineConfig } from "vitest/config";

// Workspace packages are resolved to their TypeScript sources in tests (the "@mteja/source" export
// condition), so the suite never runs against a stale build.
// (Vite's default server conditions follow the project's own.)
const conditions = ["@mteja/source", "module", "node", "development|production"];

const unitTests = ["packages/*/test/**/*.test.ts", "apps/demo/test/**/*.test.ts", "apps/daraja-sim/test/**/*.test.ts", "apps/sms-sim/test/**/*.test.ts", "scripts/test/*.test.ts"];
const apiTests = ["apps/api/test/**/*.test.ts"];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    reporters: ["default"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: "unit", include: unitTests } },
      { extends: true, test: { name: "embedded", include: apiTests, env: { MTEJA_TEST_DB: "embedded" } } },
      { extends: true, test: { name: "postgres", include: apiTests, env: { MTEJA_TEST_DB: "postgres" } } },
    ],
  },
});
