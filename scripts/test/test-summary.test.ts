/**
 * The closing line of `npm test` counts every failure: a failing test, a file whose hook failed, a file
 * that did not load. Runs vitest on a fixture folder with one of each and summarizes its real report.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
// @ts-expect-error -- a plain .mjs script without declarations
import { summarize } from "../test-summary.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const fixture = path.join(here, "fixtures", "failing-run");
const vitestBin = path.resolve(here, "..", "..", "node_modules", "vitest", "vitest.mjs");

describe("the test run's closing line", () => {
  it("counts files that failed outside a test (hook, import) as failures, and says which", () => {
    const report = path.join(mkdtempSync(path.join(tmpdir(), "mteja-summary-")), "report.json");
    const run = spawnSync(process.execPath, [vitestBin, "run", "--root", fixture, "--config", path.join(fixture, "vitest.config.ts"), "--reporter=json", `--outputFile.json=${report}`], {
      encoding: "utf8",
      env: { ...process.env, CI: "true" },
    });
    expect(run.status).not.toBe(0);
    const summary = summarize(JSON.parse(readFileSync(report, "utf8")), run.status ?? 1);
    expect(summary).toMatchObject({ passed: 2, failed: 3, skipped: 1 });
    expect(summary.failedFiles.map((f: { file: string }) => path.basename(f.file)).sort()).toEqual(["hook.test.ts", "import.test.ts"]);
    expect(summary.lines.at(-1)).toBe("Tests: 2 passed, 3 failed, 1 skipped");
  });

  it("never says 0 failed about a run that failed with no failed file (an unhandled error)", () => {
    const report = { success: false, numPassedTests: 5, numFailedTests: 0, numPendingTests: 0, numTodoTests: 0, testResults: [] };
    expect(summarize(report, 1).lines.at(-1)).toBe("Tests: 5 passed, 1 failed, 0 skipped");
    expect(summarize(undefined, 1).failed).toBe(1);
    expect(summarize({ ...report, success: true }, 0).lines.at(-1)).toBe("Tests: 5 passed, 0 failed, 0 skipped");
  });
});
