/**
 * The repository stands alone: no file points at material outside it (the contract and Daraja's wire
 * format are written in docs/ in the project's own words, and comments cite those). Fails naming
 * every file and line that mentions an outside document.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const thisFile = path.relative(root, fileURLToPath(import.meta.url)).split(path.sep).join("/");

const outsideReference =
  /\.\.\/shared\/(?:spec|daraja|decisions|sms|README|counties|anchors|hooks)|\/work\/shared|decisions\.md|reference\.md|service-spec/;

const skippedFolders = new Set(["node_modules", "dist", ".git", ".turbo", "coverage", "data"]);

/** Tracked files; a copy without git (an unpacked archive) is walked instead. */
function repositoryFiles(): string[] {
  const git = spawnSync("git", ["ls-files", "-z"], { cwd: root, encoding: "utf8" });
  if (git.status === 0) return git.stdout.split("\0").filter(Boolean);
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const relative = dir ? `${dir}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (!skippedFolders.has(entry.name)) walk(relative);
      } else if (entry.isFile()) files.push(relative);
    }
  };
  walk("");
  return files;
}

function isInspected(file: string): boolean {
  return file !== thisFile && !file.split("/").some((part) => skippedFolders.has(part));
}

function mentionsOutside(file: string): string[] {
  const absolute = path.join(root, file);
  let stats;
  try {
    stats = statSync(absolute);
  } catch {
    return []; // tracked but deleted in this working tree
  }
  if (!stats.isFile() || stats.size > 5 * 1024 * 1024) return [];
  const content = readFileSync(absolute);
  if (content.includes(0)) return []; // binary
  return content
    .toString("utf8")
    .split("\n")
    .flatMap((line, index) => (outsideReference.test(line) ? [`${file}:${index + 1}: ${line.trim()}`] : []));
}

/** The anchors a Markdown file offers: explicit `<a id="…">` and GitHub's slugs of its headings. */
function anchorsOf(markdown: string): Set<string> {
  const explicit = [...markdown.matchAll(/<a id="([^"]+)"><\/a>/g)].map((match) => match[1]!);
  const headings = [...markdown.matchAll(/^#{1,6}\s+(.+?)\s*$/gm)].map((match) =>
    match[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, "")
      .replace(/ /g, "-"),
  );
  return new Set([...explicit, ...headings]);
}

/** `docs/x.md#anchor` anywhere, `](x.md#anchor)` and `](#anchor)` inside docs/, `](docs/x.md#anchor)` in the README. */
function docCitations(file: string, content: string): { target: string; anchor: string; where: string }[] {
  const citations: { target: string; anchor: string; where: string }[] = [];
  content.split("\n").forEach((line, index) => {
    const where = `${file}:${index + 1}`;
    for (const match of line.matchAll(/(?:^|[^\w/.])(docs\/[\w-]+\.md)#([\w-]+)/g)) citations.push({ target: match[1]!, anchor: match[2]!, where });
    if (file.startsWith("docs/")) {
      for (const match of line.matchAll(/\]\(([\w-]+\.md)?#([\w-]+)\)/g)) {
        citations.push({ target: match[1] ? `docs/${match[1]}` : file, anchor: match[2]!, where });
      }
    }
  });
  return citations;
}

describe("the repository", () => {
  it("mentions no document outside it (cite docs/ instead)", () => {
    const files = repositoryFiles().filter(isInspected);
    expect(files.length).toBeGreaterThan(50);
    expect(files.flatMap(mentionsOutside)).toEqual([]);
  });

  it("cites only anchors that its docs have", () => {
    const files = repositoryFiles().filter(isInspected);
    const readable = (file: string) => {
      try {
        return readFileSync(path.join(root, file), "utf8");
      } catch {
        return undefined;
      }
    };
    const citations = files.filter((file) => /\.(ts|mjs|md|prisma)$/.test(file)).flatMap((file) => docCitations(file, readable(file) ?? ""));
    expect(citations.length).toBeGreaterThan(20);
    const missing = citations.filter(({ target, anchor }) => {
      const markdown = readable(target);
      return markdown === undefined || !anchorsOf(markdown).has(anchor);
    });
    expect(missing.map(({ target, anchor, where }) => `${where}: ${target}#${anchor}`)).toEqual([]);
  });

  it("names only paths of its own that exist, in every document but the changelog (which tells what was)", () => {
    const documents = repositoryFiles().filter((file) => isInspected(file) && file.endsWith(".md") && file !== "CHANGELOG.md");
    expect(documents.length).toBeGreaterThan(20);
    const missing = documents.flatMap((file) => {
      const content = readFileSync(path.join(root, file), "utf8");
      const named = [...content.matchAll(/`((?:packages|apps|scripts|bench|prisma|docs|\.ci)\/[^`\s]+)`/g)]
        .map((match) => match[1]!)
        // Patterns, placeholders and what a build or a run writes are not files of the repository.
        .filter((name) => !/[*<{$…]|\/dist(\/|$)|node_modules|bench\/results\//.test(name))
        .map((name) => name.replace(/#.*$/, "").replace(/[.:,;)]+$/, ""));
      const linked = [...content.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)]
        .map((match) => match[1]!)
        .filter((target) => !/^[a-z]+:/.test(target))
        .map((target) => path.posix.normalize(path.posix.join(path.posix.dirname(file), target)));
      return [...named, ...linked].filter((name) => !existsSync(path.join(root, name))).map((name) => `${file}: ${name}`);
    });
    expect(missing).toEqual([]);
  });

  it("recognises each form of outside reference", () => {
    const samples = [
      "see ../shared/spec/service-spec.md",
      "(../shared/daraja/reference.md §3.1)",
      'decisions.md "Tenants"',
      "reference.md §6",
      "/work/shared/counties.json",
      "../shared/anchors/auth-services.md",
    ];
    for (const sample of samples) expect(outsideReference.test(sample), sample).toBe(true);
  });
});
