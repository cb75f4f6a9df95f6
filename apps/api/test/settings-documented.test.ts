/**
 * Every setting is documented once: docs/configuration.md has a row for each environment variable the
 * settings schema reads, and no row for one it does not; the README and the other docs describe what a
 * setting does for them and link there, keeping no table of their own (copies drift: the README's had
 * lost eighteen settings, configuration.md's list of limit rules one rule).
 */
import { readdirSync, readFileSync } from "node:fs";
import { markdownTables as tablesOf } from "@mteja/test-support/markdown-tables";
import { describe, expect, it } from "vitest";
import { limitRuleNames } from "../src/runtime/limiter.js";
import { settingNames } from "../src/settings.js";
import { skipDatabaseAgnostic } from "./support/database.js";

const root = new URL("../../../", import.meta.url);
const read = (file: string) => readFileSync(new URL(file, root), "utf8");
const docs = readdirSync(new URL("docs/", root)).filter((name) => name.endsWith(".md")).map((name) => `docs/${name}`);

/** The names in backticks in a row's first cell (`| \`A\`, \`B\` | default | meaning |`). */
const namesInFirstCell = (row: string, pattern: RegExp) => [...(row.split("|")[1] ?? "").matchAll(pattern)].map((match) => match[1]!);
const settingPattern = /`([A-Z][A-Z0-9_]+)`/g;

/** A table of settings with their defaults: `| setting | default | …`. */
const isSettingsTable = (header: string) => /^\|\s*(setting|variable)\s*\|\s*default\s*\|/i.test(header);

/**
 * Rows that name mostly the service's settings: a copy of configuration.md's. (The Daraja simulator's
 * page has a table of its own program's settings, a few of which share a name with the service's.)
 */
function mostlyTheService(rows: string[]): boolean {
  const named = rows.flatMap((row) => namesInFirstCell(row, settingPattern));
  return named.length > 0 && named.filter((name) => settingNames.includes(name)).length * 2 > named.length;
}

function documentedSettings(): string[] {
  return tablesOf(read("docs/configuration.md"))
    .filter((table) => isSettingsTable(table.header))
    .flatMap((table) => table.rows.flatMap((row) => namesInFirstCell(row, settingPattern)));
}

describe.skipIf(skipDatabaseAgnostic)("settings documentation", () => {
  it("docs/configuration.md has a row for every setting, and none for a setting that does not exist", () => {
    const documented = documentedSettings();
    expect(settingNames.length).toBeGreaterThan(50);
    expect(settingNames.filter((name) => !documented.includes(name))).toEqual([]);
    expect(documented.filter((name) => !settingNames.includes(name))).toEqual([]);
  });

  it("each setting has one row there", () => {
    const documented = documentedSettings();
    expect(documented.filter((name, i) => documented.indexOf(name) !== i)).toEqual([]);
  });

  it("no other page keeps a table of settings: the README and the docs link to docs/configuration.md", () => {
    const copies = ["README.md", ...docs.filter((file) => file !== "docs/configuration.md")].flatMap((file) =>
      tablesOf(read(file))
        .filter((table) => (isSettingsTable(table.header) || file === "README.md") && mostlyTheService(table.rows))
        .map((table) => `${file}: ${table.header}`),
    );
    expect(copies).toEqual([]);
    expect(read("README.md")).toContain("](docs/configuration.md)");
  });

  it("docs/limits.md has a row for every abuse-limit rule, and configuration.md links there instead of listing them", () => {
    const rules = tablesOf(read("docs/limits.md"))
      .filter((table) => /^\|\s*rule\s*\|/i.test(table.header))
      .flatMap((table) => table.rows.flatMap((row) => namesInFirstCell(row, /`([a-z][a-z0-9_]+)`/g)));
    expect([...limitRuleNames].sort()).toEqual([...new Set(rules)].sort());
    const configuration = read("docs/configuration.md");
    expect(limitRuleNames.filter((rule) => configuration.includes(`\`${rule}\``))).toEqual([]);
  });
});
