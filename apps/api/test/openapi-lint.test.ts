/**
 * The served /openapi.json as integrators' tools judge it: Redocly's recommended rules (examples raised
 * to errors) and Spectral's `spectral:oas`, both with no errors. The two linters also check every example
 * (request and answer bodies, parameters, schemas) against its schema.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect } from "vitest";
import { skipThisTarget, target } from "./support/database.js";
import { it } from "./support/fixture.js";

const run = promisify(execFile);
const apiDir = resolve(import.meta.dirname, "..");
const bin = (name: string) => join(apiDir, "node_modules/.bin", name);
// The linters run offline: no telemetry, no update check (tests never leave loopback).
const offline = { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", NO_UPDATE_NOTIFIER: "1" };

interface Finding {
  rule: string;
  where: string;
  message: string;
}

/** A linter exits non-zero when it finds errors; its report is on stdout either way. */
async function lint(command: string, args: string[]): Promise<string> {
  const done = await run(bin(command), args, { env: offline, maxBuffer: 64 * 1024 * 1024 }).catch(
    (error: { stdout?: string; stderr?: string }) => {
      if (!error.stdout) throw new Error(`${command} did not report: ${error.stderr ?? String(error)}`);
      return { stdout: error.stdout };
    },
  );
  return done.stdout;
}

// The document is the same whatever the database: linted once, on the embedded one.
describe.skipIf(skipThisTarget || target !== "embedded")("/openapi.json under third-party linters", () => {
  let work: string | undefined;
  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  async function servedDocument(url: string): Promise<string> {
    work ??= await mkdtemp(join(tmpdir(), "mteja-openapi-lint-"));
    const file = join(work, "openapi.json");
    await writeFile(file, await (await fetch(`${url}/openapi.json`)).text());
    return file;
  }

  it("Redocly lint (recommended, examples checked): no errors", async ({ momo }) => {
    const file = await servedDocument(momo.url);
    const config = join(apiDir, "openapi-lint/redocly.yaml");
    const report = JSON.parse(await lint("redocly", ["lint", file, "--config", config, "--format=json"])) as {
      problems: Array<{ ruleId: string; severity: string; message: string; location: Array<{ pointer: string }> }>;
    };
    const errors: Finding[] = report.problems
      .filter((problem) => problem.severity === "error")
      .map((problem) => ({ rule: problem.ruleId, where: problem.location[0]?.pointer ?? "", message: problem.message }));
    expect(errors).toEqual([]);
  }, 120_000);

  it("Spectral spectral:oas: no errors", async ({ momo }) => {
    const file = await servedDocument(momo.url);
    const ruleset = join(apiDir, "openapi-lint/spectral.yaml");
    const report = JSON.parse(await lint("spectral", ["lint", file, "--ruleset", ruleset, "--format", "json", "--quiet"])) as Array<{
      code: string;
      severity: number;
      message: string;
      path: string[];
    }>;
    // Spectral's severities: 0 error, 1 warning, 2 information, 3 hint.
    const errors: Finding[] = report
      .filter((finding) => finding.severity === 0)
      .map((finding) => ({ rule: finding.code, where: finding.path.join("."), message: finding.message }));
    expect(errors).toEqual([]);
  }, 120_000);
});
