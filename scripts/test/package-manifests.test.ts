/**
 * Each package.json of the workspace names a dependency once per section. JSON keeps the last of two
 * equal keys without a word, so a second line for the same package hides which version or place is
 * meant; this reads the text, where both lines still stand. Fails naming the file, section and package.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const sections = ["dependencies", "devDependencies", "peerDependencies", "optionalDependencies"];

/** The root's package.json and each workspace package's (pnpm-workspace.yaml: packages/*, apps/*, bench). */
function manifests(): string[] {
  const inFolder = (folder: string) =>
    readdirSync(path.join(root, folder), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `${folder}/${entry.name}/package.json`);
  const all = ["package.json", "bench/package.json", ...inFolder("packages"), ...inFolder("apps")];
  return all.filter((file) => existsSync(path.join(root, file)));
}

/** The names a section lists as written, repeats included (a section's object holds no nested object). */
function namesIn(text: string, section: string): string[] {
  const start = new RegExp(`"${section}"\\s*:\\s*\\{`).exec(text);
  if (!start) return [];
  const body = text.slice(start.index + start[0].length, text.indexOf("}", start.index));
  return [...body.matchAll(/"([^"]+)"\s*:/g)].map((match) => match[1]!);
}

function repeatedDependencies(text: string): string[] {
  const repeats: string[] = [];
  for (const section of sections) {
    const names = namesIn(text, section);
    for (const name of new Set(names)) {
      if (names.filter((n) => n === name).length > 1) repeats.push(`${section}: ${name}`);
    }
  }
  return repeats;
}

describe("package manifests", () => {
  it("tells a repeated dependency", () => {
    const text = '{ "dependencies": { "a": "1", "b": "2", "a": "1" }, "devDependencies": { "a": "1" } }';
    expect(repeatedDependencies(text)).toEqual(["dependencies: a"]);
  });

  it("list each dependency once per section", () => {
    const found = manifests().flatMap((file) =>
      repeatedDependencies(readFileSync(path.join(root, file), "utf8")).map((repeat) => `${file} ${repeat}`),
    );
    expect(found).toEqual([]);
  });
});
