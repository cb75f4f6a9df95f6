/**
 * CSV as RFC 4180 writes it (comma-separated, CRLF after every record, a field quoted when it holds a
 * comma, a quote, CR or LF, its quotes doubled), made safe to open in a spreadsheet: a cell that
 * begins with `=`, `+`, `-` or `@` would be read as a formula (OWASP's "CSV injection"), so it is
 * prefixed with `'`, which spreadsheets show as text. A leading tab or CR starts a formula too in
 * some spreadsheets (OWASP lists them with the four), so they get the same prefix.
 */

const formulaStart = /^[=+\-@\t\r]/;
const needsQuotes = /[",\r\n]/;

/** One cell as written in the file: formula-safe first, then quoted if RFC 4180 needs it. */
export function csvCell(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return "";
  const text = String(value);
  const safe = formulaStart.test(text) ? `'${text}` : text;
  return needsQuotes.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** One record (a line) of the file, with its CRLF. */
export function csvRecord(cells: ReadonlyArray<string | number | boolean | null | undefined>): string {
  return `${cells.map(csvCell).join(",")}\r\n`;
}
