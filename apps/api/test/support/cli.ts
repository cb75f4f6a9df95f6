/** The built operator command (`apps/api/dist/cli/main.js`, `mteja`) run as a child process. */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const cliScript = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));
export const cliBuilt = existsSync(cliScript);

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout as JSON (the answer of every command but doctor). */
  json: any;
}

/** Runs `mteja <args>` with exactly these settings (plus PATH), as an operator's shell would. */
export function runCli(args: string[], env: Record<string, string>): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [cliScript, ...args], { env: { PATH: process.env.PATH ?? "", ...env }, timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
      let json: unknown;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      resolve({ code, stdout, stderr, json });
    });
  });
}
