/**
 * The dependency rules of scripts/dependency-rules.mjs (docs/architecture.md#dependency-rules) hold
 * over the workspace's source and tests: fails naming each broken rule with its imports, one line
 * each. Each rule is also shown to fire, on the fixture tree scripts/test/fixtures/layers/ (one
 * broken import per rule, laid out like the workspace).
 */
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { cruise, type ICruiseResult, type IForbiddenRuleType } from "dependency-cruiser";
import { describe, expect, it } from "vitest";
// @ts-expect-error a plain ES module: the rules are read by depcruise's command line too
import { apiLayer, areaPath, domainRanks, forbidden, options } from "../dependency-rules.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const fixtures = path.join(root, "scripts", "test", "fixtures", "layers");
const rules = (forbidden as IForbiddenRuleType[]).filter((rule) => rule.name !== "no-circular");

/** Every `src` and `test` folder of the workspace's packages and apps, relative to `base`. */
function workspaceFolders(base: string): string[] {
  return ["packages", "apps"].flatMap((group) =>
    existsSync(path.join(base, group))
      ? readdirSync(path.join(base, group), { withFileTypes: true })
          .filter((entry) => entry.isDirectory())
          .flatMap((entry) => ["src", "test"].map((folder) => `${group}/${entry.name}/${folder}`))
          .filter((folder) => existsSync(path.join(base, folder)))
      : [],
  );
}

async function cruiseFrom(baseDir: string): Promise<ICruiseResult> {
  const { output } = await cruise(workspaceFolders(baseDir), { ...options, baseDir, validate: true, ruleSet: { forbidden: rules } });
  if (typeof output === "string") throw new Error("dependency-cruiser returned a report, not a result");
  return output;
}

/** Each broken rule with its imports, `from → to`, each once. */
function brokenRules(result: ICruiseResult): Record<string, string[]> {
  const broken: Record<string, string[]> = {};
  for (const violation of result.summary.violations) {
    const lines = (broken[violation.rule.name] ??= []);
    const line = `${violation.from} → ${violation.to}`;
    if (!lines.includes(line)) lines.push(line);
  }
  for (const lines of Object.values(broken)) lines.sort();
  return broken;
}

/** Files of packages/domain/src that belong to no area and are not the API layer. */
function outsideEveryArea(result: ICruiseResult): string[] {
  const patterns = [apiLayer, ...(domainRanks as string[][]).flat().map(areaPath)].map((pattern) => new RegExp(pattern));
  return result.modules
    .map((module) => module.source)
    .filter((source) => source.startsWith("packages/domain/src/") && !patterns.some((pattern) => pattern.test(source)));
}

describe("dependency rules", () => {
  it("hold over the workspace's source and tests", async () => {
    const result = await cruiseFrom(root);
    expect(result.summary.totalCruised).toBeGreaterThan(500);
    expect(brokenRules(result)).toEqual({});
    expect(outsideEveryArea(result)).toEqual([]);
  }, 120_000);

  it("each fire on an import that breaks them", async () => {
    const broken = brokenRules(await cruiseFrom(fixtures));
    const d = "packages/domain/src";
    expect(broken).toEqual({
      "payment-flows-apart": [`${d}/payments/stk/prompt.ts → ${d}/payments/payouts/payout.ts`],
      "shared-imports-no-flow": [`${d}/payments/shared/settled.ts → ${d}/payments/payouts/payout.ts`],
      "shared-is-the-bottom": [`${d}/shared/limits.ts → ${d}/auth/session.ts`],
      "identity-without-money": [`${d}/auth/session.ts → ${d}/intents/intent.ts`],
      "domain-without-http": [`${d}/shared/limits.ts → fastify`],
      "test-support-through-a-package": ["packages/client/test/uses-api-app.ts → apps/api/test/support/app.ts"],
      "simulated-daraja-through-the-seam": ["apps/api/src/runtime/payments.ts → packages/simulated-daraja/src/index.ts"],
      "http-simulators-dev-only": ["apps/api/src/runtime/dev-simulators.ts → apps/daraja-sim/src/index.ts"],
      "http-simulators-through-dev-start": ["apps/api/src/runtime/sms.ts → apps/sms-sim/src/index.ts"],
      "rare-libraries-on-first-use": [`${d}/auth/otp/setup.ts → qrcode`, `${d}/auth/passkeys/assertion.ts → @simplewebauthn/server`],
      "area-order": [
        `${d}/auth/session.ts → ${d}/intents/intent.ts`,
        `${d}/intents/intent.ts → ${d}/trpc.ts`,
        `${d}/payments/shared/settled.ts → ${d}/payments/payouts/payout.ts`,
        `${d}/payments/stk/prompt.ts → ${d}/payments/payouts/payout.ts`,
        `${d}/shared/limits.ts → ${d}/auth/session.ts`,
      ],
    });
  });
});
