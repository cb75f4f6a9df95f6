// The load of the run, all of it through the balancer: a shop's server creating payment intents (its API
// key, an Idempotency-Key each), its customers paying them by STK push, and a few readers. A request that
// fails (no answer, a 5xx, a 429) is sent again with the same Idempotency-Key, as a careful client does;
// every attempt is counted, by the phase of the run it started in. Beside each payment, a status subscriber
// on each instance (directly, not through the balancer) notes when the final status arrives there.
import { sleep } from "./children.mjs";
import { followStatus } from "./status-stream.mjs";

/** Counts every request through the balancer: by phase, by kind and by outcome ("200", "502", "network error"). */
export function createLedger(phaseOf) {
  const rows = new Map();
  const servedBy = new Map();
  const failures = [];
  const examples = new Map();
  return {
    /** The first answer of each kind and failed outcome, to show what a failure said. */
    example(kind, outcome, body) {
      const key = `${kind} ${outcome}`;
      if (isFailure(outcome) && !examples.has(key)) examples.set(key, typeof body === "string" ? body.slice(0, 300) : body);
    },
    examples: () => Object.fromEntries(examples),
    note(kind, outcome, startPhase, instance) {
      // A request that started just before a fault and was caught by it counts under that fault.
      const phase = startPhase === "steady" ? phaseOf() : startPhase;
      const key = `${phase}\t${kind}\t${outcome}`;
      rows.set(key, (rows.get(key) ?? 0) + 1);
      if (instance) servedBy.set(instance, (servedBy.get(instance) ?? 0) + 1);
      if (isFailure(outcome)) failures.push({ phase, startPhase, kind, outcome, at: performance.now() });
    },
    phaseOf,
    rows: () => [...rows].map(([key, count]) => {
      const [phase, kind, outcome] = key.split("\t");
      return { phase, kind, outcome, count };
    }),
    servedBy: () => Object.fromEntries(servedBy),
    failures: () => failures,
  };
}

/** No answer, a 5xx or a 429 ("503", "503 SERVICE_UNAVAILABLE", "network error"). */
export function isFailure(outcome) {
  return outcome === "network error" || outcome === "timeout" || /^(5\d\d|429)\b/.test(outcome);
}

/** Daraja refused or could not be reached (502/503 PAYMENT_PROVIDER_*): the provider's answer, not the service's. */
export const isProviderAnswer = (outcome) => / PAYMENT_PROVIDER_/.test(outcome);

/** One HTTP request through the balancer, counted. */
export async function call(ledger, base, kind, method, path, { token, tenant, body, headers = {}, timeoutMs = 20_000 } = {}) {
  const phase = ledger.phaseOf();
  const sent = { ...headers };
  if (token) sent.authorization = `Bearer ${token}`;
  if (tenant) sent["x-tenant-id"] = tenant;
  if (body !== undefined) sent["content-type"] = "application/json";
  try {
    const response = await fetch(base + path, {
      method,
      headers: sent,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await response.text();
    let parsed;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = text;
    }
    // The service's error code beside the status: the balancer's own 502/503 pages have none.
    const code = typeof parsed?.error?.code === "string" ? ` ${parsed.error.code}` : "";
    ledger.note(kind, `${response.status}${code}`, phase, response.headers.get("x-served-by") ?? undefined);
    ledger.example(kind, `${response.status}${code}`, parsed);
    return { status: response.status, body: parsed, retryAfter: Number(response.headers.get("retry-after") ?? 0) };
  } catch (error) {
    const outcome = error?.name === "TimeoutError" ? "timeout" : "network error";
    ledger.note(kind, outcome, phase);
    return { status: 0, body: undefined, retryAfter: 0 };
  }
}

/**
 * Sends `request()` again while it fails, within `giveUpMs`, honouring Retry-After (at most 2 s apart). Not
 * Daraja's refusals (PAYMENT_PROVIDER_*): the same request with the same key would be answered the same.
 */
export async function retrying(request, giveUpMs = 60_000) {
  const deadline = performance.now() + giveUpMs;
  for (;;) {
    const answer = await request();
    const provider = /^PAYMENT_PROVIDER_/.test(answer.body?.error?.code ?? "");
    const failed = answer.status === 0 || answer.status === 429 || (answer.status >= 500 && !provider);
    if (!failed || performance.now() > deadline) return answer;
    await sleep(Math.min(2_000, answer.retryAfter ? answer.retryAfter * 1000 : 200));
  }
}

/**
 * Gates between the relay and the storm: the relay waits (at most `waitMs`) until the storm opened the
 * status streams of a payment before it delivers that payment's callback.
 */
export function createGates(waitMs = 3_000) {
  const gates = new Map();
  const gate = (id) => {
    if (!gates.has(id)) {
      let open;
      const promise = new Promise((resolve) => (open = resolve));
      gates.set(id, { promise, open });
    }
    return gates.get(id);
  };
  return {
    open: (id) => gate(id).open(),
    wait: (id) => Promise.race([gate(id).promise, sleep(waitMs)]).finally(() => gates.delete(id)),
  };
}

/**
 * Checkout workers until `until()` says stop. Each worker has its own customers (the per-customer limits
 * of STK pushes hold), each payment its own phone. `instances()` lists the instances a subscriber may
 * be opened on now ({ name, url }).
 */
export async function runCheckouts({ ledger, base, tenant, apiKey, workers, runTag, until, instances, gates, relay, intents = [] }) {
  const acknowledged = [];
  /** Pushes answered 202: a retry found the first attempt's row without Daraja's answer (docs/mpesa.md#idempotency-key). */
  const unknown = [];
  const samples = [];
  const abandoned = [];
  let counter = 0;
  const phoneBase = 10_000_000 + Math.floor(Math.random() * 80_000_000);

  async function checkout(customer) {
    const n = counter++;
    const amount = 10 + (n % 90);
    const created = await retrying(() =>
      call(ledger, base, "create intent", "POST", "/api/v1/payment-intents", {
        token: apiKey,
        headers: { "idempotency-key": `${runTag}-intent-${n}` },
        body: { amount, reference: `C${runTag}${n}`, user_id: customer.id, description: "Chaos order" },
      }),
    );
    if (created.status !== 201) return abandoned.push({ n, step: "create intent", status: created.status, body: created.body });
    const intentId = created.body.data.id;
    intents.push(intentId);
    const phone = `2547${String(phoneBase + n).padStart(8, "0")}`;
    let pushed;
    for (let attempt = 0; attempt < 3; attempt += 1) {
      // A retry whose first attempt stored the payment but lost Daraja's answer (a fault) waits until that
      // attempt's in-flight window ends, 82 s, then answers 202: the client waits longer than that.
      pushed = await retrying(() =>
        call(ledger, base, "stk push", "POST", "/api/momo/stkpush", {
          token: customer.accessToken,
          tenant,
          headers: { "idempotency-key": `${runTag}-pay-${n}-${attempt}` },
          body: { phone, intent_id: intentId },
          timeoutMs: 95_000,
        }),
      120_000);
      // Daraja refused the prompt (it is FAILED, the intent payable again): the customer taps "pay" again.
      if (pushed.status === 200 || !/^PAYMENT_PROVIDER_/.test(pushed.body?.error?.code ?? "")) break;
    }
    if (pushed.status === 202) return unknown.push({ n, intentId, paymentId: pushed.body?.data?.id });
    if (pushed.status !== 200) return abandoned.push({ n, step: "stk push", status: pushed.status, body: pushed.body });
    const payment = pushed.body.data;
    acknowledged.push({ n, intentId, paymentId: payment.id, checkoutRequestId: payment.checkoutRequestId });

    // A subscriber on every instance that is up, opened before the callback is delivered.
    const streams = instances().map((instance) => ({
      instance: instance.name,
      stream: followStatus(instance.url, { token: customer.accessToken, tenant, checkoutRequestId: payment.checkoutRequestId }),
    }));
    await Promise.race([Promise.all(streams.map(({ stream }) => stream.open)), sleep(3_000)]);
    gates.open(payment.checkoutRequestId);
    const results = await Promise.all(streams.map(async ({ instance, stream }) => ({ instance, ...(await stream.done) })));
    const record = relay.callbacks.get(payment.checkoutRequestId);
    const sentAt = Math.min(...(record?.copies ?? []).map((copy) => copy.okSentAt ?? Infinity));
    samples.push({ n, results, sentAt: Number.isFinite(sentAt) ? sentAt : undefined });
  }

  await Promise.all(workers.map(async (customers) => {
    for (let i = 0; until(); i += 1) await checkout(customers[i % customers.length]);
  }));
  return { acknowledged, unknown, intents, samples, abandoned };
}

/** Readers alongside: a customer's GET /me and the shop's read of an intent, one after another. */
export async function runReaders({ ledger, base, tenant, apiKey, customers, readers, until, intents }) {
  await Promise.all(Array.from({ length: readers }, async (_, r) => {
    for (let i = 0; until(); i += 1) {
      const customer = customers[(r + i) % customers.length];
      await call(ledger, base, "GET /me", "GET", "/api/v1/auth/me", { token: customer.accessToken, tenant });
      const intent = intents[intents.length - 1 - (i % Math.max(1, Math.min(20, intents.length)))];
      if (intent) await call(ledger, base, "GET intent", "GET", `/api/v1/payment-intents/${intent}`, { token: apiKey });
      await sleep(25);
    }
  }));
}
