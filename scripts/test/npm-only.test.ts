/**
 * The README promises a machine with only Node and npm: npm reads the repository's configuration
 * without a warning (pnpm's settings live in pnpm-workspace.yaml, not in an .npmrc npm does not know),
 * and every command the README and docs give is an npm script, not a pnpm one.
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

describe("a machine with only Node and npm", () => {
  it("runs npm in the repository without a warning", () => {
    // Only the repository's configuration is under test: the runner's own npm_config_* variables (pnpm sets
    // some npm does not know) are left out, as on a shell where a user types npm.
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
    const result = spawnSync("npm", ["pkg", "get", "name"], { cwd: root, encoding: "utf8", env: { ...env, npm_config_update_notifier: "false" } });
    expect(result.status).toBe(0);
    expect(result.stderr).not.toMatch(/npm warn/i);
  });

  it("gives users npm commands: no `pnpm` command line in the README or the docs a shop reads", () => {
    const files = ["README.md", ...readdirSync(path.join(root, "docs")).filter((name) => name.endsWith(".md")).map((name) => `docs/${name}`)];
    // A contributor's notes may show pnpm (it is the workspace's package manager); what a user types may not.
    const contributorDocs = new Set(["docs/architecture.md", "docs/performance.md"]);
    const offending = files
      .filter((file) => !contributorDocs.has(file))
      .flatMap((file) =>
        readFileSync(path.join(root, file), "utf8")
          .split("\n")
          .map((line, index) => ({ file, line: index + 1, text: line }))
          .filter(({ text }) => /(^|[`\s(])pnpm (--filter|-C|exec|install|run|pack|mteja|test|start|build|dlx)\b/.test(text)),
      );
    expect(offending).toEqual([]);
  });
});
