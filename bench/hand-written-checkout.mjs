// The hand-written checkout bench/checkout.mjs compares Mteja's with: Fastify + pg + fetch doing by hand
// what a checkout needs and nothing more — the shop's server creates an intent with its API key, the
// customer's app asks for the prompt with its access token (the payment stored before Daraja is called),
// Daraja's callback is stored then applied once under the payment's row lock together with the intent,
// the event and its deliveries, and a delivery loop POSTs each event, signed, to the shop's endpoint with
// the same in-flight caps as Mteja's worker (the contract's: an endpoint at most 2 in flight). Added to
// bench/login-server.mjs's hand-written server.
import { createHash, createHmac, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import { verifiedClaims } from "./hand-written-me.mjs";
import { inTransaction } from "./pg-transaction.mjs";

const sha256 = (text) => createHash("sha256").update(text).digest("hex");
const darajaTimestamp = (date) => date.toISOString().replace(/[-:TZ.]/g, "").slice(0, 14);

/**
 * `daraja`: { baseUrl, consumerKey, consumerSecret, shortcode, passkey, callbackUrl } (callbackUrl with its
 * `?token=`); `callbackSecret`: the token callbacks must carry; `webhookSecret`: the shop's endpoint's
 * signing secret; `concurrency`: deliveries in flight at most (Mteja's WEBHOOK_TENANT_CONCURRENCY for one shop).
 */
export function addHandWrittenCheckout(app, pool, { publicKey, daraja, callbackSecret, webhookSecret, concurrency }) {
  // One token fetch at a time: Daraja (and the simulator) cancels the previous token with each new one.
  let token;
  let fetching;
  async function darajaToken() {
    if (token && token.until > Date.now()) return token.value;
    fetching ??= (async () => {
      const basic = Buffer.from(`${daraja.consumerKey}:${daraja.consumerSecret}`).toString("base64");
      const answer = await fetch(`${daraja.baseUrl}/oauth/v1/generate?grant_type=client_credentials`, { headers: { authorization: `Basic ${basic}` } });
      const body = await answer.json();
      token = { value: body.access_token, until: Date.now() + (Number(body.expires_in) - 60) * 1000 };
    })().finally(() => (fetching = undefined));
    await fetching;
    return token.value;
  }

  app.post("/api/v1/payment-intents", async (request, reply) => {
    const key = /^Bearer (mk_\S+)$/.exec(request.headers.authorization ?? "")?.[1];
    const found = key ? (await pool.query("SELECT tenant_id FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL", [sha256(key)])).rows[0] : undefined;
    if (!found) return reply.code(401).send({ success: false });
    const { amount, reference } = request.body ?? {};
    if (!Number.isInteger(amount) || typeof reference !== "string") return reply.code(422).send({ success: false });
    const id = `pi_${randomBytes(18).toString("base64url")}`;
    const { rows } = await pool.query(
      `INSERT INTO payment_intents (id, tenant_id, amount, reference, status, metadata, expires_at, created_at, updated_at)
       VALUES ($1, $2, $3, $4, 'requires_payment', '{}', now() + interval '1 day', now(), now()) RETURNING id, amount, reference, status`,
      [id, found.tenant_id, amount, reference],
    );
    return reply.code(201).send({ success: true, data: rows[0] });
  });

  app.post("/api/momo/stkpush", async (request, reply) => {
    const claims = verifiedClaims(request, publicKey);
    if (!claims) return reply.code(401).send({ success: false });
    const { phone, intent_id: intentId } = request.body ?? {};
    const intent = (await pool.query("SELECT id, amount, reference, status FROM payment_intents WHERE id = $1 AND tenant_id = $2", [intentId, claims.tid])).rows[0];
    if (!intent || intent.status !== "requires_payment") return reply.code(409).send({ success: false });
    // Stored before Daraja is called: an answer that never comes still leaves the payment to settle.
    const payment = (
      await pool.query(
        `INSERT INTO payments (id, tenant_id, user_id, phone, amount, reference, description, status, intent_id, created_at, updated_at)
         VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, 'Payment', 'PENDING', $6, now(), now()) RETURNING id`,
        [claims.tid, claims.sub, phone, intent.amount, intent.reference, intent.id],
      )
    ).rows[0];
    const timestamp = darajaTimestamp(new Date());
    const answer = await fetch(`${daraja.baseUrl}/mpesa/stkpush/v1/processrequest`, {
      method: "POST",
      headers: { authorization: `Bearer ${await darajaToken()}`, "content-type": "application/json" },
      body: JSON.stringify({
        BusinessShortCode: daraja.shortcode,
        Password: Buffer.from(`${daraja.shortcode}${daraja.passkey}${timestamp}`).toString("base64"),
        Timestamp: timestamp,
        TransactionType: "CustomerPayBillOnline",
        Amount: intent.amount,
        PartyA: phone,
        PartyB: daraja.shortcode,
        PhoneNumber: phone,
        CallBackURL: daraja.callbackUrl,
        AccountReference: intent.reference,
        TransactionDesc: "Payment",
      }),
    });
    const accepted = await answer.json();
    if (answer.status !== 200 || accepted.ResponseCode !== "0") return reply.code(502).send({ success: false });
    await inTransaction(pool, async (client) => {
      await client.query("UPDATE payments SET checkout_request_id = $2, merchant_request_id = $3, updated_at = now() WHERE id = $1", [payment.id, accepted.CheckoutRequestID, accepted.MerchantRequestID]);
      await client.query("UPDATE payment_intents SET status = 'processing', updated_at = now() WHERE id = $1", [intent.id]);
    });
    return { success: true, data: { checkoutRequestId: accepted.CheckoutRequestID, status: "PENDING" } };
  });

  const expectedToken = Buffer.from(callbackSecret);
  app.post("/api/momo/callback/stkpush", async (request, reply) => {
    const presented = Buffer.from(String(request.query.token ?? ""));
    if (presented.length !== expectedToken.length || !timingSafeEqual(presented, expectedToken)) return reply.code(403).send({ success: false });
    const raw = JSON.stringify(request.body);
    const callback = request.body?.Body?.stkCallback;
    if (!callback) return reply.code(400).send({ success: false });
    const stored = (
      await pool.query(
        "INSERT INTO momo_callbacks (id, kind, raw_body, source_ip, received_at, outcome, correlation_id) VALUES (gen_random_uuid(), 'stkpush', $1, $2, now(), 'accepted', $3) RETURNING id",
        [raw, request.ip, callback.CheckoutRequestID],
      )
    ).rows[0];
    const items = new Map((callback.CallbackMetadata?.Item ?? []).map((item) => [item.Name, item.Value]));
    let delivered = false;
    await inTransaction(pool, async (client) => {
      const payment = (await client.query("SELECT * FROM payments WHERE checkout_request_id = $1 FOR UPDATE", [callback.CheckoutRequestID])).rows[0];
      let outcome = "flagged";
      if (payment && payment.status !== "PENDING") outcome = "duplicate";
      else if (payment && callback.ResultCode === 0 && items.get("Amount") === payment.amount) {
        const settled = (
          await client.query(
            `UPDATE payments SET status = 'SUCCESS', result_code = '0', result_desc = $2, mpesa_receipt = $3, paid_amount = $4, paid_phone = $5,
                    transaction_date = $6, settled_at = now(), updated_at = now() WHERE id = $1 RETURNING *`,
            [payment.id, callback.ResultDesc, items.get("MpesaReceiptNumber"), items.get("Amount"), String(items.get("PhoneNumber")), String(items.get("TransactionDate"))],
          )
        ).rows[0];
        await client.query("UPDATE payment_intents SET status = 'succeeded', updated_at = now() WHERE id = $1", [payment.intent_id]);
        const eventId = `evt_${randomUUID().replace(/-/g, "")}`;
        const body = JSON.stringify({ id: eventId, type: "payment.succeeded", created_at: new Date().toISOString(), tenant_id: payment.tenant_id, data: { payment: paymentObject(settled) } });
        await client.query("INSERT INTO webhook_events (id, tenant_id, type, body, created_at) VALUES ($1, $2, 'payment.succeeded', $3, now())", [eventId, payment.tenant_id, body]);
        await client.query(
          `INSERT INTO webhook_deliveries (id, tenant_id, event_id, endpoint_id, status, attempts, next_attempt_at, created_at)
           SELECT gen_random_uuid(), tenant_id, $1, id, 'pending', 0, now(), now() FROM webhook_endpoints
            WHERE tenant_id = $2 AND enabled AND deleted_at IS NULL`,
          [eventId, payment.tenant_id],
        );
        outcome = "applied";
        delivered = true;
      }
      await client.query("UPDATE momo_callbacks SET outcome = $2, payment_id = $3 WHERE id = $1", [stored.id, outcome, payment?.id ?? null]);
    });
    if (delivered) deliveries.nudge();
    return reply.header("cache-control", "no-store").send({ ResultCode: 0, ResultDesc: "Accepted" });
  });

  const deliveries = startDeliveryLoop(pool, { secretOf: () => webhookSecret, concurrency });
  return { stop: () => deliveries.stop() };
}

function paymentObject(p) {
  return {
    id: p.id, channel: "stk", status: p.status, amount: p.amount, phone: p.phone, mpesa_receipt: p.mpesa_receipt,
    checkout_request_id: p.checkout_request_id, trans_id: null, intent_id: p.intent_id, duplicate: false, reversal: null,
    refunded_amount: 0, created_at: p.created_at.toISOString(), updated_at: p.updated_at.toISOString(),
  };
}

/**
 * The hand-written delivery worker: claim due deliveries (leased, skipping locked rows), POST each signed,
 * mark it; at most `concurrency` in flight, of them at most `tenantConcurrency` of one tenant and
 * `endpointConcurrency` of one endpoint (Mteja's WEBHOOK_CONCURRENCY, WEBHOOK_TENANT_CONCURRENCY and the
 * contract's 2 per endpoint). `secretOf(endpointId)`: the endpoint's signing secret.
 */
export function startDeliveryLoop(pool, { secretOf, concurrency, tenantConcurrency = concurrency, endpointConcurrency = 2 }) {
  let inFlight = 0;
  const perTenant = new Map();
  const perEndpoint = new Map();
  let stopped = false;
  let claiming = false;
  async function claim() {
    if (claiming || stopped || inFlight >= concurrency) return;
    claiming = true;
    try {
      const full = [...perTenant].filter(([, n]) => n >= tenantConcurrency).map(([tenant]) => tenant);
      const busy = [...perEndpoint].filter(([, n]) => n >= endpointConcurrency).map(([endpoint]) => endpoint);
      const { rows } = await pool.query(
        `UPDATE webhook_deliveries d SET locked_until = now() + interval '10 seconds', attempts = attempts + 1
          WHERE d.id IN (SELECT id FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= now()
                           AND (locked_until IS NULL OR locked_until < now()) AND tenant_id <> ALL($2::text[])
                           AND endpoint_id <> ALL($3::uuid[])
                         ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED)
          RETURNING d.id, d.tenant_id, d.endpoint_id, d.event_id, (SELECT url FROM webhook_endpoints e WHERE e.id = d.endpoint_id) AS url,
                    (SELECT body FROM webhook_events v WHERE v.id = d.event_id) AS body, (SELECT type FROM webhook_events v WHERE v.id = d.event_id) AS type`,
        [concurrency - inFlight, full, busy],
      );
      for (const row of rows) {
        const tenantCount = perTenant.get(row.tenant_id) ?? 0;
        const endpointCount = perEndpoint.get(row.endpoint_id) ?? 0;
        // Claimed beyond the tenant's or the endpoint's cap within one batch: handed back for a later claim.
        if (tenantCount >= tenantConcurrency || endpointCount >= endpointConcurrency) {
          await pool.query("UPDATE webhook_deliveries SET locked_until = NULL, attempts = attempts - 1 WHERE id = $1", [row.id]);
          continue;
        }
        inFlight++;
        perTenant.set(row.tenant_id, tenantCount + 1);
        perEndpoint.set(row.endpoint_id, endpointCount + 1);
        deliver(row).finally(() => {
          inFlight--;
          perTenant.set(row.tenant_id, perTenant.get(row.tenant_id) - 1);
          perEndpoint.set(row.endpoint_id, perEndpoint.get(row.endpoint_id) - 1);
          void claim();
        });
      }
    } finally {
      claiming = false;
    }
  }
  async function deliver(row) {
    const t = Math.floor(Date.now() / 1000);
    const signature = createHmac("sha256", secretOf(row.endpoint_id)).update(`${t}.${row.body}`).digest("hex");
    let ok = false;
    try {
      const answer = await fetch(row.url, {
        method: "POST",
        headers: { "content-type": "application/json", "mteja-event-id": row.event_id, "mteja-event-type": row.type, "mteja-signature": `t=${t},v1=${signature}` },
        body: row.body,
        redirect: "manual",
        signal: AbortSignal.timeout(10_000),
      });
      await answer.arrayBuffer();
      ok = answer.status >= 200 && answer.status < 300;
    } catch {
      ok = false;
    }
    await pool.query(
      ok
        ? "UPDATE webhook_deliveries SET status = 'delivered', finished_at = now(), locked_until = NULL WHERE id = $1"
        : "UPDATE webhook_deliveries SET next_attempt_at = now() + interval '5 seconds', locked_until = NULL WHERE id = $1",
      [row.id],
    );
  }
  const timer = setInterval(() => void claim(), 200);
  return {
    nudge: () => void claim(),
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
