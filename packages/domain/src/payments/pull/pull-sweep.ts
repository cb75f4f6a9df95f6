/**
 * The reconciler's Pull sweep (docs/mpesa.md#recovery): every MOMO_PULL_INTERVAL_SECONDS each short code
 * registered for Pull Transactions is pulled over its latest window, and what no confirmation brought is
 * applied (pulled-receipts.ts). Daraja does not resend a confirmation a 503 or an outage turned away:
 * this is how C2B money comes back.
 *
 * Fair between shops: a shop is one row, claimed when due, oldest due first, and pulled once per run over
 * a bounded number of pages; the next pull of a shop that was just pulled is an interval away, so no shop
 * goes twice while another waits. Claimed rows are locked (other instances skip them) and leased like the
 * other sweeps' (shared/leased-sweep.ts).
 *
 * The window starts one interval before where the last one ended (a receipt may show in Pull a little
 * late), or before the earliest row left to a pending prompt's query, and never more than 48 hours back.
 */
import { pullRegistrations } from "@mteja/db";
import { leasedRows, leaseEnd, queryErrorNote, type SweepRun } from "../shared/leased-sweep.js";
import { liveMoney } from "../shared/money-mode.js";
import { c2bShortCodeOf } from "../shared/short-codes.js";
import { PULL_REACH_MS } from "./pull-now.js";
import { applyPulled, type PullWindow } from "./pulled-receipts.js";

/** Pages one shop's pull reads in one run at most (10,000 rows at 100 a page); the rest waits for the next. */
const SWEEP_PAGES = 100;

/** The window a registration's next pull covers. */
export function sweepWindow(pulledUntil: Date | null, now: Date, intervalSeconds: number): PullWindow {
  const reach = now.getTime() - PULL_REACH_MS;
  const start = pulledUntil === null ? reach : Math.max(reach, pulledUntil.getTime() - intervalSeconds * 1000);
  return { from: new Date(start), to: now };
}

export async function sweepPulls(run: SweepRun): Promise<void> {
  const { deps, options } = run;
  const interval = deps.daraja.settings.pullIntervalSeconds;
  if (interval === 0) return;
  const now = deps.clock.now();
  const leaseUntil = leaseEnd(run, now);
  const claimed = await pullRegistrations.claimDue(deps.db.unscoped("worker"), { now, leaseUntil, limit: options.batchSize });
  for (const registration of leasedRows(run, "pull_registrations", claimed, leaseUntil)) {
    await pullRegistration(run, registration, interval);
  }
}

async function pullRegistration(
  run: SweepRun,
  registration: pullRegistrations.ClaimedRegistration,
  interval: number,
): Promise<void> {
  const { deps, report } = run;
  const at = deps.clock.now();
  const window = sweepWindow(registration.pulled_until, at, interval);
  const fields = { tenantId: registration.tenant_id, shortCode: registration.short_code };
  let pulledUntil: Date | undefined;
  let error: string | null = null;
  try {
    const tenant = await deps.tenants.find(registration.tenant_id);
    const client = tenant && (await run.clientFor(tenant.id, liveMoney));
    if (!tenant || !client) throw new Error("M-Pesa is not configured for this tenant");
    // Its rows are that short code's: a shop paid through another one now registers that one.
    if (c2bShortCodeOf(deps, tenant) !== registration.short_code) {
      throw new Error("the shop's short code is no longer the one registered for Pull");
    }
    await run.pace();
    report.pullsRun += 1;
    const shortCode = registration.short_code;
    const { from, to } = window;
    const result = await client.pullTransactions({ shortCode, from, to, maxPages: SWEEP_PAGES });
    const rows = result.transactions;
    const count = result.noRecords ? undefined : await applyPulled(deps, tenant, shortCode, rows, window);
    report.receiptsRecovered += count?.recovered ?? 0;
    const { logger } = deps;
    if (count && count.recovered > 0) logger.info({ ...fields, recovered: count.recovered }, "Pull recovered payments");
    if (result.unreadable.length > 0) {
      logger.warn({ ...fields, unreadable: result.unreadable.length }, "pulled rows that do not read: not credited");
    }
    // A truncated pull starts the next one where this one started: it reads on from there.
    const deferred = count?.deferredFrom;
    if (!result.truncated) pulledUntil = deferred && deferred < window.to ? deferred : window.to;
  } catch (failure) {
    report.errors += 1;
    error = queryErrorNote(failure).slice(0, 500);
    deps.logger.warn({ ...fields, error }, "Pull Transactions sweep failed for a shop");
  }
  const nextPullAt = new Date(deps.clock.now().getTime() + interval * 1000);
  const done = { at, nextPullAt, ...(pulledUntil ? { pulledUntil } : {}), error };
  await pullRegistrations.finishPull(deps.db.unscoped("worker"), registration.id, done);
}
