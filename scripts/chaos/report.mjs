// The checks of the chaos run, read from the database, the receiver, the relay and the ledger of requests,
// and the report printed at the end (docs/deployment.md#the-chaos-run records one).
import { isFailure, isProviderAnswer } from "./storm.mjs";

/** The q-quantile of numbers (nearest rank), or NaN for none. */
export function quantile(values, q) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

/**
 * Status latency of each payment seen by subscribers on two instances. The applying instance wakes its own
 * subscribers in process, right after its commit: its subscriber's arrival is when the settlement was
 * applied, and the other subscriber's arrival after it is what crossing to the other instance adds (the
 * check). Beside it, from the sending of the first callback copy the balancer answered 200: to the later
 * subscriber (end to end, the callback's own handling included) and to the earlier one. Samples whose time
 * overlaps a fault window are kept apart.
 */
export function statusLatencies(samples, faults) {
  const overlaps = (from, to) => faults.some((fault) => from <= (fault.to ?? Infinity) && to >= fault.from);
  const steady = [];
  const duringFaults = [];
  const same = [];
  /** The later subscriber after the earlier one: what crossing from one instance to the other added. */
  const spread = [];
  const slowest = [];
  let incomplete = 0;
  for (const sample of samples) {
    const arrivals = sample.results.filter((result) => result.settledAt !== undefined).map((result) => result.settledAt);
    if (sample.results.length < 2 || arrivals.length < 2 || sample.sentAt === undefined) {
      incomplete += 1;
      continue;
    }
    const later = Math.max(...arrivals);
    const latency = later - sample.sentAt;
    if (overlaps(sample.sentAt, later)) duringFaults.push(latency);
    else {
      steady.push(latency);
      same.push(Math.min(...arrivals) - sample.sentAt);
      spread.push(later - Math.min(...arrivals));
      const last = faults.filter((fault) => fault.from <= sample.sentAt).at(-1);
      const after = last ? `${((sample.sentAt - last.to) / 1000).toFixed(1)} s after the ${last.what}` : "before any fault";
      slowest.push({ latency, same: Math.min(...arrivals) - sample.sentAt, spread: later - Math.min(...arrivals), after });
    }
  }
  slowest.sort((a, b) => b.spread - a.spread);
  return { steady, duringFaults, same, spread, slowest: slowest.slice(0, 3), incomplete };
}

export async function checkRun({ cluster, tenant, storm, relay, receiver, ledger, faults, timings }) {
  const ids = storm.acknowledged.map((payment) => `'${payment.paymentId}'`).join(",") || "NULL";
  const payments = await cluster.json(`SELECT coalesce(json_object_agg(status, n), '{}') FROM
    (SELECT status, count(*) AS n FROM payments WHERE tenant_id = '${tenant}' GROUP BY status) AS counted`);
  const acknowledgedStatus = await cluster.json(`SELECT coalesce(json_object_agg(status, n), '{}') FROM
    (SELECT status, count(*) AS n FROM payments WHERE id IN (${ids}) GROUP BY status) AS counted`);
  const intents = await cluster.json(`SELECT coalesce(json_agg(row_to_json(i)), '[]') FROM (
    SELECT pi.id, pi.status, count(p.id) FILTER (WHERE p.status = 'SUCCESS') AS paid, count(p.id) AS prompts
      FROM payment_intents pi LEFT JOIN payments p ON p.intent_id = pi.id
     WHERE pi.tenant_id = '${tenant}' GROUP BY pi.id) AS i`);
  const succeededEvents = await cluster.json(`SELECT coalesce(json_agg(row_to_json(e)), '[]') FROM (
    SELECT p.id, count(w.id) AS events FROM payments p
      LEFT JOIN webhook_events w ON w.tenant_id = p.tenant_id AND w.type = 'payment.succeeded'
       AND (w.body::json -> 'data' -> 'payment' ->> 'id') = p.id::text
     WHERE p.tenant_id = '${tenant}' AND p.status = 'SUCCESS' GROUP BY p.id) AS e`);
  const strayEvents = await cluster.json(`SELECT count(*) FROM webhook_events w WHERE w.tenant_id = '${tenant}'
    AND w.type = 'payment.succeeded' AND NOT EXISTS (SELECT 1 FROM payments p
      WHERE p.id::text = (w.body::json -> 'data' -> 'payment' ->> 'id') AND p.status = 'SUCCESS')`);
  const events = await cluster.json(`SELECT coalesce(json_agg(json_build_array(id, type)), '[]') FROM webhook_events WHERE tenant_id = '${tenant}'`);

  const unknownIds = storm.unknown.map((payment) => `'${payment.paymentId}'`).join(",") || "NULL";
  const unknownStatus = await cluster.json(`SELECT coalesce(json_object_agg(status, n), '{}') FROM
    (SELECT status, count(*) AS n FROM payments WHERE id IN (${unknownIds}) GROUP BY status) AS counted`);
  const acknowledgedIntents = new Set(storm.acknowledged.map((payment) => payment.intentId));
  const eventTypes = {};
  for (const [, type] of events) eventTypes[type] = (eventTypes[type] ?? 0) + 1;
  const undelivered = events.filter(([id]) => !receiver.events.has(id));
  const deliveredMoreThanOnce = [...receiver.events.values()].filter((event) => event.deliveries > 1).length;
  const latencies = statusLatencies(storm.samples, faults);
  const requests = ledger.rows();
  const relayAnswers = [...relay.answers].map(([key, count]) => {
    const [phase, outcome] = key.split(" ");
    return { phase, kind: "Daraja callback", outcome: key.slice(phase.length + 1), count };
  });
  const all = [...requests, ...relayAnswers];
  const byPhase = {};
  for (const row of all) {
    const entry = (byPhase[row.phase] ??= { requests: 0, failed: 0, refusedByDaraja: 0, failures: {} });
    entry.requests += row.count;
    if (isFailure(row.outcome)) {
      // Daraja's refusals (a token another instance had replaced, refreshed and refused again) are the
      // provider's answer, counted apart: no fault of the run's causes them.
      if (isProviderAnswer(row.outcome)) entry.refusedByDaraja += row.count;
      else entry.failed += row.count;
      const key = `${row.kind} ${row.outcome}`;
      entry.failures[key] = (entry.failures[key] ?? 0) + row.count;
    }
  }
  const callbackAnswers = {};
  for (const row of relayAnswers) callbackAnswers[row.outcome] = (callbackAnswers[row.outcome] ?? 0) + row.count;

  const notSuccess = storm.acknowledged.length - (acknowledgedStatus.SUCCESS ?? 0);
  const badIntents = intents.filter((intent) => intent.paid > 1 || (acknowledgedIntents.has(intent.id) && (intent.paid !== 1 || intent.status !== "succeeded")));
  const wrongEventCounts = succeededEvents.filter((payment) => Number(payment.events) !== 1);
  const acrossMax = Math.max(...latencies.spread);
  const drainFailures = byPhase.drain?.failed ?? 0;
  const checks = [
    { name: "every acknowledged payment SUCCESS", ok: storm.acknowledged.length > 0 && notSuccess === 0,
      detail: `${acknowledgedStatus.SUCCESS ?? 0} of ${storm.acknowledged.length} (${JSON.stringify(acknowledgedStatus)})` },
    { name: "every intent paid exactly once", ok: badIntents.length === 0,
      detail: `${intents.length} intents, ${intents.filter((intent) => intent.paid === 1).length} paid once, ${badIntents.length} wrong` },
    { name: "exactly one payment.succeeded event per payment", ok: wrongEventCounts.length === 0 && strayEvents === 0,
      detail: `${succeededEvents.length} successful payments, ${wrongEventCounts.length} without exactly one event, ${strayEvents} events of no successful payment` },
    { name: "every event delivered at least once, signature valid", ok: undelivered.length === 0 && receiver.counts().invalid === 0,
      detail: `${events.length - undelivered.length} of ${events.length} events received; ${receiver.counts().deliveries} deliveries, ${receiver.counts().invalid} with a bad signature, ${deliveredMoreThanOnce} events received more than once` },
    { name: "status across instances under 1 s", ok: latencies.spread.length >= 10 && acrossMax < 1000,
      detail: `${latencies.spread.length} payments: the other instance's subscriber after the applying one's median ` +
        `${ms(quantile(latencies.spread, 0.5))}, p95 ${ms(quantile(latencies.spread, 0.95))}, max ${ms(acrossMax)}; ` +
        `from the callback median ${ms(quantile(latencies.steady, 0.5))}, max ${ms(Math.max(...latencies.steady))}` },
    { name: "no failed request through the balancer during the drain", ok: drainFailures === 0 && (byPhase.drain?.requests ?? 0) > 0,
      detail: `${byPhase.drain?.requests ?? 0} requests, ${drainFailures} failed, ${byPhase.drain?.refusedByDaraja ?? 0} refused by Daraja` },
    { name: "no Daraja callback answered 500", ok: !callbackAnswers["500"],
      detail: JSON.stringify(callbackAnswers) },
  ];
  return {
    checks,
    counts: {
      paymentsAcknowledged: storm.acknowledged.length,
      checkoutsAbandoned: storm.abandoned.length,
      pushesWithUnknownOutcome: storm.unknown.length,
      unknownOutcomesNow: unknownStatus,
      abandoned: storm.abandoned.slice(0, 5),
      payments,
      intents: intents.length,
      callbacksFromDaraja: relay.callbacks.size,
      callbackCopiesDelivered: [...relay.callbacks.values()].reduce((sum, record) => sum + record.copies.filter((copy) => copy.okAt !== undefined).length, 0),
      callbackAnswers,
      relayGaveUp: relay.stats().gaveUp,
      webhookEvents: eventTypes,
      webhookDeliveries: receiver.counts().deliveries,
      eventsReceivedMoreThanOnce: deliveredMoreThanOnce,
      servedBy: ledger.servedBy(),
      // Failures outside the kill and the database restart, with when they happened.
      otherFailures: ledger.failures().filter((failure) => !["kill", "database"].includes(failure.phase)).map((failure) => {
        const last = faults.filter((fault) => fault.from <= failure.at).at(-1);
        const when = !last ? "before any fault" : `${((failure.at - last.from) / 1000).toFixed(1)} s after the ${last.what} began`;
        return `${failure.phase}: ${failure.kind} ${failure.outcome}, answered ${when}`;
      }),
      failureExamples: ledger.examples(),
      byPhase,
    },
    latency: {
      acrossInstances: summary(latencies.spread),
      fromCallbackToOtherInstance: summary(latencies.steady),
      fromCallbackToSameInstance: summary(latencies.same),
      slowest: latencies.slowest.map((sample) => roundAll(sample)),
      acrossInstancesDuringFaults: summary(latencies.duringFaults),
      samplesWithoutTwoSubscribers: latencies.incomplete,
    },
    timings: roundAll(timings),
  };
}

const ms = (value) => (Number.isFinite(value) ? `${Math.round(value)} ms` : "n/a");

function summary(values) {
  return { samples: values.length, medianMs: round(quantile(values, 0.5)), p95Ms: round(quantile(values, 0.95)), maxMs: round(values.length ? Math.max(...values) : NaN) };
}

const round = (value) => (Number.isFinite(value) ? Math.round(value) : null);

function roundAll(value) {
  if (typeof value === "number") return round(value);
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, roundAll(inner)]));
  return value;
}

export function printReport(result, log) {
  const { counts, latency, timings } = result;
  const out = (line = "") => console.log(line);
  out();
  log("report");
  out(`  run: ${result.run.date}, ${result.run.machine}, ${result.run.balancer}, load average ${result.run.loadAverage.join(" ")}`);
  out(`  storm: ${result.run.workers} checkout workers, ${result.run.readers} readers, ${Math.round(timings.stormMs / 1000)} s (${result.run.gapS} s of steady load around each fault); whole run ${result.run.totalS} s`);
  out(`  payments: ${counts.paymentsAcknowledged} acknowledged, ${counts.pushesWithUnknownOutcome} answered 202 (outcome unknown; now ${JSON.stringify(counts.unknownOutcomesNow)}), ${counts.checkoutsAbandoned} checkouts abandoned; by status ${JSON.stringify(counts.payments)}; ${counts.intents} intents`);
  out(`  callbacks: ${counts.callbacksFromDaraja} from Daraja, ${counts.callbackCopiesDelivered} copies accepted; answers ${JSON.stringify(counts.callbackAnswers)}`);
  out(`  webhooks: events ${JSON.stringify(counts.webhookEvents)}, ${counts.webhookDeliveries} deliveries, ${counts.eventsReceivedMoreThanOnce} events received more than once`);
  out(`  requests answered by: ${JSON.stringify(counts.servedBy)}`);
  for (const [phase, entry] of Object.entries(counts.byPhase)) {
    const refused = entry.refusedByDaraja ? ` (+${entry.refusedByDaraja} refused by Daraja)` : "";
    const failures = entry.failed || entry.refusedByDaraja ? JSON.stringify(entry.failures) : "";
    out(`  phase ${phase.padEnd(9)} ${String(entry.requests).padStart(6)} requests, ${entry.failed} failed${refused} ${failures}`);
  }
  for (const failure of counts.otherFailures) out(`  failure outside the kill and the database restart: ${failure}`);
  for (const [what, body] of Object.entries(counts.failureExamples)) out(`  a ${what} said: ${JSON.stringify(body).slice(0, 240)}`);
  const l = latency.acrossInstances;
  out(`  status across instances (the other instance's subscriber after the applying one's): median ${l.medianMs} ms, p95 ${l.p95Ms} ms, max ${l.maxMs} ms (${l.samples} payments)`);
  const e = latency.fromCallbackToOtherInstance;
  const s = latency.fromCallbackToSameInstance;
  out(`  … from the callback to the other instance's subscriber: median ${e.medianMs} ms, p95 ${e.p95Ms} ms, max ${e.maxMs} ms; to the applying one's: median ${s.medianMs} ms, max ${s.maxMs} ms`);
  out(`  … slowest across: ${latency.slowest.map((x) => `${x.spread} ms (${x.latency} ms from the callback, ${x.after})`).join(", ")}`);
  const f = latency.acrossInstancesDuringFaults;
  out(`  … from the callback, while a fault was under way: median ${f.medianMs} ms, max ${f.maxMs} ms (${f.samples} payments); ${latency.samplesWithoutTwoSubscribers} payments without two subscribers`);
  const leased = timings.killLeasedDeliveries
    ? `the ${timings.killLeasedDeliveries} webhook deliveries under lease at the kill all sent ${timings.killDeliveriesDoneMs ?? "(not yet)"} ms after it`
    : "no webhook delivery was under lease at the kill";
  out(`  kill -9: restarted in ${timings.killRestartMs} ms, back in the balancer after ${timings.killBackInBalancerMs} ms; ${leased}`);
  for (const [name, times] of Object.entries(timings.database ?? {})) {
    out(`  database restart, instance ${name}: /readyz 503 ${times.unreadyAfterStopMs} ms after the stop began, 200 ${times.readyAfterStartMs} ms after the start, listening for status notices again after ${times.listeningAfterStartMs} ms`);
  }
  const d = timings.drain ?? {};
  out(`  rolling deploy of b: /readyz 503 after ${d.unreadyMs} ms, out of the balancer after ${d.outOfBalancerMs} ms, exited (${d.exit}) after ${d.exitMs} ms, new process in the balancer after ${d.backInBalancerMs} ms`);
  out(`  settling after the storm: ${timings.settleMs} ms`);
  out();
  for (const check of result.checks) out(`  ${check.ok ? "ok  " : "FAIL"}  ${check.name}: ${check.detail}`);
}
