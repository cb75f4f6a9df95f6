/**
 * `mteja report daily`: a tenant's daily report (docs/reports.md), the same bytes as
 * GET /api/v1/reports/daily with one of its API keys, made by the same code (the domain's dailyReport).
 * The operator holds the database, so a disabled tenant's report can be made too.
 */
import { tenants, type Database } from "@mteja/db";
import { dailyReport, dailyReportInput, DomainError, type ReportPorts } from "@mteja/domain";
import { createWriteStream } from "node:fs";
import { rm } from "node:fs/promises";
import { Readable, type Writable } from "node:stream";
import { pipeline } from "node:stream/promises";

export interface DailyReportRequest {
  tenant: string;
  /** YYYY-MM-DD, a Nairobi day; default yesterday. */
  date?: string | undefined;
}

/**
 * Writes the report to `out` (a stream, or a file's path) as it is read. A date that is not a day is
 * VALIDATION_ERROR and a tenant that does not exist NOT_FOUND, as the API answers them, before anything
 * is written; a file cut short by a failure is removed.
 */
export async function writeDailyReport(
  ports: ReportPorts & { db: Database },
  request: DailyReportRequest,
  out: Writable | string,
): Promise<void> {
  const input = dailyReportInput.parse(request.date === undefined ? {} : { date: request.date });
  const tenant = await tenants.findTenant(ports.db.unscoped("operator-cli"), request.tenant);
  if (!tenant) throw new DomainError("NOT_FOUND");
  // The operator's report is of live money (docs/test-mode.md).
  const file = dailyReport(ports, { db: ports.db.forTenant(request.tenant, { livemode: true }), livemode: true }, input);
  const body = Readable.from(file.chunks, { objectMode: false });
  if (typeof out !== "string") return pipeline(body, out);
  try {
    await pipeline(body, createWriteStream(out));
  } catch (error) {
    await rm(out, { force: true });
    throw error;
  }
}
