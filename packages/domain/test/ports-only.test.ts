import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/** Time and chance reach domain code only through the Clock and Random ports (Deps.clock, Deps.random). */
const srcDir = fileURLToPath(new URL("../src", import.meta.url));
const portsFile = "core/ports.ts";
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

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

function portViolations(dir: string): string[] {
  const found: string[] = [];
  for (const file of sourceFiles(dir)) {
    const name = relative(dir, file).split("\\").join("/");
    if (name === portsFile) continue;
    readFileSync(file, "utf8")
      .split("\n")
      .forEach((line, index) => {
        for (const { name: call, pattern } of forbidden) if (pattern.test(line)) found.push(`${name}:${index + 1} uses ${call}`);
      });
  }
  return found;
}

describe("domain code and the Clock and Random ports", () => {
  it("finds no clock, timer or random call outside core/ports.ts", () => {
    expect(portViolations(srcDir)).toEqual([]);
  });

  it("would notice one", () => {
    const ports = readFileSync(join(srcDir, portsFile), "utf8");
    expect(ports).toMatch(/setTimeout/);
    expect(forbidden.some(({ pattern }) => pattern.test(ports))).toBe(true);
  });
});
