/**
 * Every setting is documented once: docs/configuration.md has a row for each environment variable the
 * settings schema reads, and no row for one it does not; the README points there instead of keeping a
 * copy of the tables (a copy drifts: it had lost eleven settings).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { settingNames } from "../src/settings.js";
import { skipDatabaseAgnostic } from "./support/database.js";

const root = new URL("../../../", import.meta.url);
const read = (file: string) => readFileSync(new URL(file, root), "utf8");

/** The settings a table row names in its first cell (`| \`A\`, \`B\` | default | meaning |`). */
function settingsInRows(markdown: string): string[] {
  return markdown
    .split("\n")
    .filter((line) => line.startsWith("| `"))
    .flatMap((line) => [...(line.split("|")[1] ?? "").matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((match) => match[1]!));
}

describe.skipIf(skipDatabaseAgnostic)("settings documentation", () => {
  it("docs/configuration.md has a row for every setting, and none for a setting that does not exist", () => {
    const documented = settingsInRows(read("docs/configuration.md"));
    expect(settingNames.length).toBeGreaterThan(50);
    expect(settingNames.filter((name) => !documented.includes(name))).toEqual([]);
    expect(documented.filter((name) => !settingNames.includes(name))).toEqual([]);
  });

  it("each setting has one row there", () => {
    const documented = settingsInRows(read("docs/configuration.md"));
    expect(documented.filter((name, i) => documented.indexOf(name) !== i)).toEqual([]);
  });

  it("the README keeps no copy of the tables: it links to docs/configuration.md", () => {
    const readme = read("README.md");
    expect(settingsInRows(readme)).toEqual([]);
    expect(readme).toContain("](docs/configuration.md)");
  });
});
