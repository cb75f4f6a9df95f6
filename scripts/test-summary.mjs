/**
 * The plain closing line of a test run, from vitest's JSON report: "Tests: N passed, N failed, N skipped".
 *
 * A file can fail without a failing test — a hook that threw or timed out, a module that did not load —
 * and vitest can exit non-zero on an unhandled error after every test passed. Each of those counts as a
 * failure here, so the closing line never says "0 failed" about a run that failed.
 */

/**
 * @param {any} report vitest's JSON report, or undefined when none was written
 * @param {number} exitCode vitest's exit code
 * @returns {{ passed: number, failed: number, skipped: number, failedFiles: { file: string, reason: string }[], lines: string[] }}
 */
export function summarize(report, exitCode) {
  if (!report) {
    const failed = exitCode === 0 ? 0 : 1;
    return { passed: 0, failed, skipped: 0, failedFiles: [], lines: ["(no test report was written)", `Tests: 0 passed, ${failed} failed, 0 skipped`] };
  }
  const failedFiles = [];
  for (const file of report.testResults ?? []) {
    if (file.status !== "failed") continue;
    const failedTests = (file.assertionResults ?? []).filter((test) => test.status === "failed").length;
    if (failedTests > 0) continue;
    const reason = String(file.message ?? "").split("\n")[0] || "a hook or the file itself failed outside any test";
    failedFiles.push({ file: file.name, reason });
  }
  let failed = (report.numFailedTests ?? 0) + failedFiles.length;
  // An unhandled error after the tests, or any other reason vitest failed the run.
  if (failed === 0 && (exitCode !== 0 || report.success === false)) failed = 1;
  const passed = report.numPassedTests ?? 0;
  const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  const lines = failedFiles.map(({ file, reason }) => `failed outside a test: ${file} — ${reason}`);
  lines.push(`Tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
  return { passed, failed, skipped, failedFiles, lines };
}
