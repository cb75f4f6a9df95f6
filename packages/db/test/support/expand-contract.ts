/**
 * The expand-then-contract rule of migrations (docs/deployment.md, "Rolling deploys and migrations"),
 * as pure functions: which statements of a migration drop or rename a table or a column, and which of
 * those a rolling deploy cannot take — the previous release, still running beside the new one, uses
 * them. Such a statement is allowed only in a migration marked as a contract step
 * (`-- expand-contract: contract`), and only for a table or column the previous release no longer uses.
 */

/** What the previous release's code uses (prisma/previous-release.json, scripts/previous-release.mjs). */
export interface ReleaseRecord {
  release: string;
  commit: string;
  migrations: string[];
  tables: Record<string, string[]>;
}

export type Destructive =
  | { kind: "drop table" | "rename table"; table: string; statement: string }
  | { kind: "drop column" | "rename column"; table: string; column: string; statement: string };

export interface Refusal {
  migration: string;
  reason: string;
}

/** The line that marks a migration as a contract step. */
export const contractMarker = /^--\s*expand-contract:\s*contract\b/m;

const marker = "-- expand-contract: contract";

/** Refusals for one migration (empty: allowed). */
export function checkMigration(name: string, sql: string, previous: ReleaseRecord): Refusal[] {
  const found = destructiveStatements(sql);
  if (found.length === 0) return [];
  if (!contractMarker.test(sql)) {
    return found.map((statement) => ({
      migration: name,
      reason: `${describe(statement)} in a migration not marked as a contract step (${marker}): ${statement.statement}`,
    }));
  }
  return found.filter((statement) => stillUsed(statement, previous)).map((statement) => ({
    migration: name,
    reason: `${describe(statement)}, which the ${previous.release} still uses: ${statement.statement}`,
  }));
}

function stillUsed(statement: Destructive, previous: ReleaseRecord): boolean {
  const columns = previous.tables[statement.table];
  if (columns === undefined) return false;
  return "column" in statement ? columns.includes(statement.column) : true;
}

function describe(statement: Destructive): string {
  const target = "column" in statement ? `${statement.table}.${statement.column}` : statement.table;
  return `${statement.kind} ${target}`;
}

/** The statements of `sql` that drop or rename a table or a column. */
export function destructiveStatements(sql: string): Destructive[] {
  return splitStatements(sql).flatMap((statement) => readStatement(statement));
}

/** A name, quoted or not; a table's may be qualified by its schema. */
const name = String.raw`(?:"(?:[^"]|"")*"|[\w$]+)`;
const alterTable = new RegExp(
  String.raw`^ALTER\s+TABLE\s+(?:IF\s+EXISTS\s+)?(?:ONLY\s+)?(${name}(?:\s*\.\s*${name})?)\s+([\s\S]+)$`,
  "i",
);

function readStatement(statement: string): Destructive[] {
  const dropTable = /^DROP\s+TABLE\s+(?:IF\s+EXISTS\s+)?(.+?)(?:\s+(?:CASCADE|RESTRICT))?$/i.exec(statement);
  if (dropTable) {
    return splitTopLevel(dropTable[1]!).map((table) => ({ kind: "drop table", table: identifier(table), statement }));
  }
  const alter = alterTable.exec(statement);
  if (!alter) return [];
  const table = identifier(alter[1]!);
  return splitTopLevel(alter[2]!).flatMap((action): Destructive[] => {
    const renameTable = /^RENAME\s+TO\s+/i.exec(action);
    if (renameTable) return [{ kind: "rename table", table, statement }];
    const renameColumn = /^RENAME\s+(?:COLUMN\s+)?("(?:[^"]|"")*"|[\w$]+)\s+TO\s+/i.exec(action);
    if (renameColumn && !/^RENAME\s+CONSTRAINT\b/i.test(action)) {
      return [{ kind: "rename column", table, column: identifier(renameColumn[1]!), statement }];
    }
    const dropColumn = /^DROP\s+(?:COLUMN\s+)?(?:IF\s+EXISTS\s+)?("(?:[^"]|"")*"|[\w$]+)/i.exec(action);
    if (dropColumn && !/^DROP\s+CONSTRAINT\b/i.test(action)) {
      return [{ kind: "drop column", table, column: identifier(dropColumn[1]!), statement }];
    }
    return [];
  });
}

/** A name as PostgreSQL stores it: a quoted one as written, an unquoted one in lower case; the schema dropped. */
function identifier(text: string): string {
  const parts = splitQualified(text.trim());
  const last = parts[parts.length - 1]!;
  return last.startsWith('"') ? last.slice(1, -1).replaceAll('""', '"') : last.toLowerCase();
}

function splitQualified(text: string): string[] {
  const parts: string[] = [];
  let current = "";
  let quoted = false;
  for (const char of text) {
    if (char === '"') quoted = !quoted;
    if (char === "." && !quoted) {
      parts.push(current.trim());
      current = "";
    } else current += char;
  }
  parts.push(current.trim());
  return parts;
}

/** Splits on commas outside parentheses and quotes (a table list, an ALTER TABLE's actions). */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote: string | undefined;
  let current = "";
  for (const char of text) {
    if (quote) {
      if (char === quote) quote = undefined;
    } else if (char === '"' || char === "'") quote = char;
    else if (char === "(") depth += 1;
    else if (char === ")") depth -= 1;
    else if (char === "," && depth === 0) {
      parts.push(current.trim());
      current = "";
      continue;
    }
    current += char;
  }
  parts.push(current.trim());
  return parts.filter(Boolean);
}

/**
 * The statements of a script, comments removed and white space collapsed: split on `;` outside quotes,
 * string literals, dollar-quoted bodies (a function's) and comments.
 */
export function splitStatements(sql: string): string[] {
  const statements: string[] = [];
  let current = "";
  let i = 0;
  while (i < sql.length) {
    const rest = sql.slice(i);
    if (rest.startsWith("--")) {
      const end = sql.indexOf("\n", i);
      i = end === -1 ? sql.length : end;
      current += " ";
      continue;
    }
    if (rest.startsWith("/*")) {
      const end = sql.indexOf("*/", i + 2);
      i = end === -1 ? sql.length : end + 2;
      current += " ";
      continue;
    }
    const dollar = /^\$[A-Za-z_]*\$/.exec(rest);
    if (dollar) {
      const end = sql.indexOf(dollar[0], i + dollar[0].length);
      const stop = end === -1 ? sql.length : end + dollar[0].length;
      current += sql.slice(i, stop);
      i = stop;
      continue;
    }
    const char = sql[i]!;
    if (char === "'" || char === '"') {
      let end = i + 1;
      while (end < sql.length && !(sql[end] === char && sql[end + 1] !== char)) end += sql[end] === char ? 2 : 1;
      current += sql.slice(i, end + 1);
      i = end + 1;
      continue;
    }
    if (char === ";") {
      statements.push(current);
      current = "";
    } else current += char;
    i += 1;
  }
  statements.push(current);
  return statements.map((statement) => statement.replace(/\s+/g, " ").trim()).filter(Boolean);
}
