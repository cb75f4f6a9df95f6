import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sourceFiles, srcDir } from "./support/source-files.js";

/** Time and chance reach domain code only through the Clock and Random ports (Deps.clock, Deps.random). */
const portsFile = "shared/ports.ts";
const forbidden: { name: string; pattern: RegExp }[] = [
  { name: "Date.now", pattern: /\bDate\.now\b/ },
  { name: "new Date() without an argument", pattern: /\bnew Date\(\s*\)/ },
  { name: "Math.random", pattern: /\bMath\.random\b/ },
  { name: "setTimeout", pattern: /\bsetTimeout\b/ },
  { name: "setInterval", pattern: /\bsetInterval\b/ },
  { name: "performance.now", pattern: /\bperformance\.now\b/ },
  { name: "process.hrtime", pattern: /\bprocess\.hrtime\b/ },
  { name: "node:crypto randomness", pattern: /\b(randomUUID|randomBytes|randomInt|getRandomValues)\b/ },
];

function portViolations(dir: string): string[] {
  const found: string[] = [];
  for (const { name, lines } of sourceFiles(dir)) {
    if (name === portsFile) continue;
    lines.forEach((line, index) => {
      for (const { name: call, pattern } of forbidden) if (pattern.test(line)) found.push(`${name}:${index + 1} uses ${call}`);
    });
  }
  return found;
}

describe("domain code and the Clock and Random ports", () => {
  it("finds no clock, timer or random call outside shared/ports.ts", () => {
    expect(portViolations(srcDir)).toEqual([]);
  });

  it("would notice one", () => {
    const ports = readFileSync(join(srcDir, portsFile), "utf8");
    expect(ports).toMatch(/setTimeout/);
    expect(forbidden.some(({ pattern }) => pattern.test(ports))).toBe(true);
  });
});
