/**
 * The daily report (docs/reports.md): one CSV row per money movement a shop settled in one Nairobi
 * day, oldest first. The REST operation and the operator's command (`mteja report daily`) both write
 * what `dailyReport` makes, so the two give the same bytes.
 *
 * Nothing is read whole: each kind of movement is read a page (REPORT_BATCH_SIZE rows) at a time on its
 * keyset, the kinds are merged by settlement time, and the text goes out a page's worth of rows at a
 * time, so at most one page of each kind and one chunk of text are held, whatever the day's size. The
 * pages are separate statements, not one snapshot: a movement settling while a report of its day is read
 * lands after everything read so far (it settles now), so it is in the report or not, never twice.
 */
import type { TenantDb } from "@mteja/db";
import type { StreamedFile } from "../shared/streamed-file.js";
import { csvRecord } from "./csv.js";
import { movementSources, type MovementRow, type MovementSource } from "./movement-sources.js";
import type { ReportPorts } from "./ports.js";
import { dayBefore, nairobiTime, type ReportDay } from "./report-day.js";
import type { DailyReportInput } from "./schemas.js";

export const dailyReportColumns = [
  "time",
  "type",
  "id",
  "channel",
  "reference",
  "amount",
  "mpesa_receipt",
  "status",
  "livemode",
] as const;

/**
 * The report of `input.date` (default: yesterday in Nairobi, by the clock) for the tenant and the mode
 * whose client `db` is (docs/test-mode.md: a test key's report shows test money, a live key's live
 * money; the client's mode scope filters every kind's rows, `livemode` fills the column). Nothing is
 * read until its first chunk is asked for.
 */
export function dailyReport(ports: ReportPorts, scoped: { db: TenantDb; livemode: boolean }, input: DailyReportInput): StreamedFile {
  const day = input.date ?? dayBefore(ports.clock.now());
  const { db, livemode } = scoped;
  return { filename: `mteja-daily-${day.date}.csv`, chunks: csvChunks(db, day, livemode, ports.reports.batchSize) };
}

/** The header, then the rows, a page's worth of records per chunk (the first chunk: the header and the first page). */
async function* csvChunks(db: TenantDb, day: ReportDay, livemode: boolean, batchSize: number): AsyncGenerator<string> {
  let text = csvRecord(dailyReportColumns);
  let rows = 0;
  for await (const row of settledInOrder(db, day, batchSize)) {
    const { type, id, channel, reference, amount, mpesaReceipt, status } = row;
    const time = nairobiTime(row.settledAt);
    text += csvRecord([time, type, id, channel, reference, amount, mpesaReceipt, status, livemode]);
    rows += 1;
    if (rows % batchSize === 0) {
      yield text;
      text = "";
    }
  }
  if (text || rows === 0) yield text;
}

/**
 * Every kind's rows merged by settlement time: the earliest head of the kinds goes next; on the same
 * instant the kind listed first in movementSources.
 */
async function* settledInOrder(db: TenantDb, day: ReportDay, batchSize: number): AsyncGenerator<MovementRow> {
  const kinds = movementSources.map((source) => rowsOf(source, db, day, batchSize));
  try {
    // One kind at a time: a report holds one connection, not one per kind.
    const heads: Array<IteratorResult<MovementRow>> = [];
    for (const kind of kinds) heads.push(await kind.next());
    for (;;) {
      let next = -1;
      heads.forEach((head, i) => {
        if (head.done) return;
        const best = heads[next];
        if (!best || best.done || head.value.settledAt.getTime() < best.value.settledAt.getTime()) next = i;
      });
      const head = heads[next];
      if (!head || head.done) return;
      yield head.value;
      heads[next] = await kinds[next]!.next();
    }
  } finally {
    // The reader went away before the end (a closed download): stop each kind's reads.
    for (const kind of kinds) await kind.return(undefined);
  }
}

/** One kind's rows of the day, read a page at a time after the last row of the page before. */
async function* rowsOf(source: MovementSource, db: TenantDb, day: ReportDay, take: number) {
  const window = { from: day.from, to: day.to, statuses: source.statuses };
  let after: { settledAt: Date; id: string } | undefined;
  for (;;) {
    const page = await source.read(db, { window, after, take });
    yield* page;
    const last = page[page.length - 1];
    if (page.length < take || !last) return;
    after = { settledAt: last.settledAt, id: last.key };
  }
}
