// Records what the previous release's code uses of the database (docs/deployment.md, "Rolling deploys and
// migrations"): its migrations and, from its prisma/schema.prisma, every table and column its Prisma client
// reads. During a rolling deploy that release still runs, so a migration of this one may not drop or
// rename any of them (test/expand-contract.test.ts). Run at each release, with the release's commit:
//
//   node packages/db/scripts/previous-release.mjs <commit> "<release name>"
//
// It writes prisma/previous-release.json, which the check reads: a fresh or shallow clone needs no history.
import { get_dmmf } from "@prisma/prisma-schema-wasm";
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";

export const recordPath = fileURLToPath(new URL("../../../prisma/previous-release.json", import.meta.url));
const root = fileURLToPath(new URL("../../../", import.meta.url));

const git = (...args) => execFileSync("git", args, { cwd: root, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });

/** True when this clone holds `commit` (a shallow clone may not). */
export function hasCommit(commit) {
  try {
    git("cat-file", "-e", `${commit}^{commit}`);
    return true;
  } catch {
    return false;
  }
}

/** Tables and columns a Prisma schema maps (scalar fields only: a relation is no column), sorted. */
export function columnsOfSchema(schema) {
  const dmmf = JSON.parse(get_dmmf(JSON.stringify({ prismaSchema: [["schema.prisma", schema]] })));
  const tables = {};
  for (const model of dmmf.datamodel.models) {
    const columns = model.fields.filter((field) => field.kind !== "object").map((field) => field.dbName ?? field.name);
    tables[model.dbName ?? model.name] = columns.sort();
  }
  return Object.fromEntries(Object.entries(tables).sort(([a], [b]) => a.localeCompare(b)));
}

/** The record of the release at `commit`. */
export function recordOf(commit, release) {
  const full = git("rev-parse", `${commit}^{commit}`).trim();
  const migrations = git("ls-tree", "--name-only", `${full}:prisma/migrations`)
    .split("\n")
    .filter((name) => /^\d{14}_/.test(name))
    .sort();
  return { release, commit: full, migrations, tables: columnsOfSchema(git("show", `${full}:prisma/schema.prisma`)) };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [commit, release] = process.argv.slice(2);
  if (!commit || !release) {
    console.error('usage: node packages/db/scripts/previous-release.mjs <commit> "<release name>"');
    process.exit(2);
  }
  writeFileSync(recordPath, `${JSON.stringify(recordOf(commit, release), null, 2)}\n`);
  console.log(`wrote ${recordPath}`);
}
