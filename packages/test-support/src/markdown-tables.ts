/** A Markdown table as the docs write them: its header line and its rows (the `|---|` line left out). */
export interface MarkdownTable {
  header: string;
  rows: string[];
}

/** Every table of a Markdown text, in order: runs of lines that start with `|`. */
export function markdownTables(markdown: string): MarkdownTable[] {
  const tables: MarkdownTable[] = [];
  let current: MarkdownTable | undefined;
  for (const line of markdown.split("\n")) {
    if (!line.startsWith("|")) current = undefined;
    else if (!current) tables.push((current = { header: line, rows: [] }));
    else if (!/^\|[\s|:-]+\|$/.test(line)) current.rows.push(line);
  }
  return tables;
}
