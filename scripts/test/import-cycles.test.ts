/**
 * No import cycles in the workspace's source (packages/x/src, apps/x/src), type-only imports
 * included: a type import is coupling too, and a loop of them is the same tangle a newcomer has to
 * unpick. dependency-cruiser resolves imports as TypeScript does (`./x.js` → `./x.ts`, workspace
 * packages through their "@mteja/source" export condition), so a loop that crosses packages is
 * found as well. Fails naming every cycle it found, one line each.
 */
import { readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { cruise, type ICruiseResult, type IForbiddenRuleType } from "dependency-cruiser";
import { describe, expect, it } from "vitest";
// @ts-expect-error a plain ES module: the rules are read by depcruise's command line too
import { forbidden, options } from "../dependency-rules.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const fixtures = path.join(root, "scripts", "test", "fixtures", "import-cycle");

/** Every `src` folder of the workspace's packages and apps, relative to the root. */
function sourceFolders(): string[] {
  return ["packages", "apps"].flatMap((group) =>
    readdirSync(path.join(root, group), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `${group}/${entry.name}/src`)
      .filter((folder) => readdirSync(path.join(root, path.dirname(folder))).includes("src")),
  );
}

async function cruiseFrom(baseDir: string, folders: string[]): Promise<ICruiseResult> {
  const noCircular = (forbidden as IForbiddenRuleType[]).filter((rule) => rule.name === "no-circular");
  const { output } = await cruise(folders, { ...options, baseDir, validate: true, ruleSet: { forbidden: noCircular }, skipAnalysisNotInRules: true });
  if (typeof output === "string") throw new Error("dependency-cruiser returned a report, not a result");
  return output;
}

/** Each cycle once, as `a.ts → b.ts → a.ts`. dependency-cruiser reports a cycle at each of its members. */
function cyclesIn(result: ICruiseResult): string[] {
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const violation of result.summary.violations) {
    if (violation.rule.name !== "no-circular" || !violation.cycle) continue;
    const members = [violation.from, ...violation.cycle.map((step) => step.name)];
    const ring = members.slice(0, -1);
    const key = [...ring].sort().join("|");
    if (seen.has(key)) continue;
    seen.add(key);
    lines.push(members.join(" → "));
  }
  return lines;
}

function localEdges(result: ICruiseResult): string[] {
  return result.modules.flatMap((module) =>
    module.dependencies.filter((dependency) => !dependency.coreModule && !dependency.couldNotResolve).map((dependency) => `${module.source} → ${dependency.resolved}`),
  );
}

describe("imports", () => {
  it("form no cycle in the workspace's source (type-only imports included)", async () => {
    const folders = sourceFolders();
    expect(folders).toEqual(expect.arrayContaining(["packages/domain/src", "packages/mailer/src", "apps/api/src"]));
    const result = await cruiseFrom(root, folders);
    // The check sees through `.js` specifiers to the `.ts` sources and across workspace packages.
    expect(localEdges(result)).toEqual(expect.arrayContaining(["packages/domain/src/index.ts → packages/domain/src/shared/errors.ts", "apps/api/src/server.ts → packages/domain/src/index.ts"]));
    expect(cyclesIn(result)).toEqual([]);
  }, 120_000);

  it("finds a cycle made only of type imports", async () => {
    const result = await cruiseFrom(fixtures, ["."]);
    expect(cyclesIn(result)).toEqual([expect.stringMatching(/^(a|b)\.ts → (a|b)\.ts → (a|b)\.ts$/)]);
  });
});
