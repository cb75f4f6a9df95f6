import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

/** packages/domain/src, for the structural tests that read its files as text. */
export const srcDir = fileURLToPath(new URL("../../src", import.meta.url));

/** Every .ts file below `dir`, as its path relative to `dir` (with /) and its lines. */
export function sourceFiles(dir: string): { name: string; lines: string[] }[] {
  return listTs(dir).map((file) => ({ name: relative(dir, file).split("\\").join("/"), lines: readFileSync(file, "utf8").split("\n") }));
}

function listTs(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return listTs(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}
