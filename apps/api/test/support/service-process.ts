/** The built service (`apps/api/dist/main.js`) as a child process, as `npm start` runs it. */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const mainScript = fileURLToPath(new URL("../../dist/main.js", import.meta.url));
export const serviceBuilt = existsSync(mainScript);

export interface RunningService {
  child: ChildProcess;
  url: string;
  output: () => string;
}

/** Starts it with these environment variables over the test's own; resolves once it listens (or after `timeoutMs`). */
export function startServiceProcess(env: Record<string, string>, timeoutMs = 30_000): Promise<RunningService> {
  const child = spawn(process.execPath, [mainScript], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start within ${timeoutMs / 1000} s:\n${output}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({ child, url: match[1]!, output: () => output });
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before listening:\n${output}`));
    });
  });
}
