// The hand-written STK callback route bench/callbacks.mjs compares Mteja's with: Fastify + pg doing the
// same two steps by hand — the raw body stored (one INSERT), then applied once in one transaction under
// the payment's row lock (lock, settle if PENDING, record the outcome on the stored row) — and the same
// answer. No event outbox, no id-less prompt matching, no receipt check: what any route must do at least.
import Fastify from "fastify";
import { createHash, randomUUID, timingSafeEqual } from "node:crypto";
import { inTransaction } from "./pg-transaction.mjs";

/**
 * A callback route by hand: the same token check, the raw body stored (its own commit), then `apply`
 * in one transaction, which returns the outcome for the stored row and the payment it names (or
 * `applyWithoutTransaction`, given the stored row's id, which records the outcome itself).
 */
async function startCallbackRoute(pool, secret, path, apply, applyWithoutTransaction, { prepare = false } = {}) {
  const app = Fastify({ logger: false });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "string" }, (_request, body, done) => done(null, body));
  const expected = Buffer.from(secret);
  app.post(path, async (request, reply) => {
    const token = Buffer.from(String(request.query.token ?? ""));
    if (token.length !== expected.length || !timingSafeEqual(token, expected)) return reply.code(403).send({ success: false });
    let callback;
    try {
      callback = JSON.parse(request.body).Body.stkCallback;
    } catch {
      return reply.code(400).send({ success: false });
    }
    const items = new Map((callback.CallbackMetadata?.Item ?? []).map((item) => [item.Name, item.Value]));
    const insert = "INSERT INTO momo_callbacks (id, kind, raw_body, source_ip, received_at, outcome, correlation_id) VALUES (gen_random_uuid(), 'stkpush', $1, $2, now(), 'accepted', $3) RETURNING id";
    const values = [request.body, request.ip, callback.CheckoutRequestID];
    const { rows } = await (prepare ? pool.query(prepared(insert, values)) : pool.query(insert, values));
    if (applyWithoutTransaction) await applyWithoutTransaction(rows[0].id, callback, items);
    else
      await inTransaction(pool, async (client) => {
        const { outcome, paymentId, recordSql } = await apply(client, callback, items);
        await client.query(recordSql, [rows[0].id, outcome, paymentId]);
      });
    return reply.header("cache-control", "no-store").send({ ResultCode: 0, ResultDesc: "Accepted" });
  });
  await app.listen({ port: 0, host: "127.0.0.1" });
  return { base: `http://127.0.0.1:${app.server.address().port}`, close: () => app.close() };
}

/** The hand-written route: the same token check, the raw body stored, then applied once under the payment's row lock. */
export function startHandWrittenCallbacks(pool, secret, path = "/api/momo/callback/stkpush") {
  return startCallbackRoute(pool, secret, path, async (client, callback, items) => {
    const payment = (await client.query("SELECT id, status, amount FROM payments WHERE checkout_request_id = $1 FOR UPDATE", [callback.CheckoutRequestID])).rows[0];
    let outcome = "flagged";
    if (payment && payment.status !== "PENDING") outcome = "duplicate";
    else if (payment && callback.ResultCode === 0 && items.get("Amount") === payment.amount) {
      await client.query(
        `UPDATE payments SET status = 'SUCCESS', result_code = $2, result_desc = $3, mpesa_receipt = $4, paid_amount = $5, paid_phone = $6,
                transaction_date = $7, settled_at = now(), updated_at = now() WHERE id = $1`,
        [payment.id, String(callback.ResultCode), callback.ResultDesc, items.get("MpesaReceiptNumber"), items.get("Amount"), String(items.get("PhoneNumber")), String(items.get("TransactionDate"))],
      );
      outcome = "applied";
    }
    return { outcome, paymentId: payment?.id ?? null, recordSql: "UPDATE momo_callbacks SET outcome = $2, payment_id = $3 WHERE id = $1" };
  });
}

/**
 * For reference, not a goal: the same route doing by hand the statements of a locked apply, as Mteja's
 * fallback path does it (docs/performance.md, "Callback ingestion") — the stored row; then, in one
 * transaction, the payment locked and read whole together with the look for its receipt on every other
 * payment, the payment updated in the statement that also writes the payment.succeeded event and one
 * delivery per subscribed endpoint, the outcome recorded on the stored row while it is still unhandled —
 * 6 statements, as many as above. What Mteja's callback could cost with no framework at all.
 */
export function startMtejaStatementsByHand(pool, secret, path = "/api/momo/callback/stkpush") {
  return startCallbackRoute(pool, secret, path, async (client, callback, items) => {
    const payment = (await client.query(`${PAYMENT_WITH_RECEIPT_LOOK} FOR UPDATE`, [callback.CheckoutRequestID, items.get("MpesaReceiptNumber")])).rows[0];
    const outcome = outcomeFor(payment, callback, items);
    if (outcome === "applied") await client.query(settleStatement(""), settleParameters(payment, callback, items));
    return { outcome, paymentId: payment?.id ?? null, recordSql: `${RECORD_OUTCOME} RETURNING id, kind, received_at` };
  });
}

/**
 * For reference, not a goal: the design Mteja's callbacks follow (docs/performance.md, "Callback
 * ingestion"), with no framework. The same work in three round trips instead of six: the stored row;
 * the payment read, with no lock; then one statement that settles it only if it is still as read
 * (PENDING, the same updated_at), records the outcome and writes the event — a single statement is its
 * own transaction, and the row lock its UPDATE takes is the lock the settlement is applied under. Read
 * anew when the payment changed in between. Settled exactly once as the locked route: the guard is the
 * check the lock made. Its statements are prepared, as Mteja's are (the hand-written route's are sent as
 * text).
 */
export function startOptimisticByHand(pool, secret, path = "/api/momo/callback/stkpush") {
  return startCallbackRoute(pool, secret, path, null, async (storedId, callback, items) => {
    for (;;) {
      const payment = (await pool.query(prepared(PAYMENT_WITH_RECEIPT_LOOK, [callback.CheckoutRequestID, items.get("MpesaReceiptNumber")]))).rows[0];
      const outcome = outcomeFor(payment, callback, items);
      if (outcome !== "applied") {
        await pool.query(prepared(RECORD_OUTCOME, [storedId, outcome, payment?.id ?? null]));
        return;
      }
      const guarded = `, recorded AS (
           UPDATE momo_callbacks SET outcome = 'applied', payment_id = $1
            WHERE id = $12 AND outcome = 'accepted' AND payment_id IS NULL AND payout_id IS NULL AND EXISTS (SELECT 1 FROM updated) RETURNING id
         )`;
      const { rows } = await pool.query(prepared(settleStatement("AND status = 'PENDING' AND updated_at = $13", guarded), [...settleParameters(payment, callback, items), storedId, payment.updated_at]));
      if (rows.length === 1) return;
    }
  }, { prepare: true });
}

/**
 * A statement pg prepares once per connection and then sends by name, as Mteja sends its statements
 * (DATABASE_PREPARED_STATEMENTS): the optimistic settle by hand is compared on the same footing.
 */
const statementNames = new Map();
function prepared(text, values) {
  let name = statementNames.get(text);
  if (!name) statementNames.set(text, (name = `bench_${createHash("sha256").update(text).digest("hex").slice(0, 20)}`));
  return { name, text, values };
}

const PAYMENT_WITH_RECEIPT_LOOK = `SELECT *, EXISTS (SELECT 1 FROM payments other WHERE other.mpesa_receipt = $2 AND other.id <> payments.id) AS receipt_elsewhere
  FROM payments WHERE checkout_request_id = $1`;

const RECORD_OUTCOME = "UPDATE momo_callbacks SET outcome = $2, payment_id = $3 WHERE id = $1 AND outcome = 'accepted' AND payment_id IS NULL AND payout_id IS NULL";

function outcomeFor(payment, callback, items) {
  if (!payment) return "flagged";
  if (payment.status !== "PENDING") return "duplicate";
  return callback.ResultCode === 0 && items.get("Amount") === payment.amount && !payment.receipt_elsewhere ? "applied" : "flagged";
}

/** The payment settled in the statement that writes its event and deliveries (the event only if it was). */
function settleStatement(guard, more = "") {
  return `WITH updated AS (
      UPDATE payments SET status = 'SUCCESS', result_code = $2, result_desc = $3, mpesa_receipt = $4, paid_amount = $5, paid_phone = $6,
             transaction_date = $7, last_error = NULL, next_query_at = NULL, settled_at = $10, updated_at = $10 WHERE id = $1 ${guard} RETURNING *
    )${more}, event AS (
      INSERT INTO webhook_events (id, tenant_id, type, body, created_at) SELECT $8, $9, 'payment.succeeded', $11, $10 FROM updated RETURNING id, tenant_id, type, created_at
    ), deliveries AS (
      INSERT INTO webhook_deliveries (id, tenant_id, event_id, endpoint_id, status, attempts, next_attempt_at, created_at)
      SELECT gen_random_uuid(), event.tenant_id, event.id, endpoint.id, 'pending', 0, event.created_at, event.created_at
        FROM event JOIN webhook_endpoints endpoint ON endpoint.tenant_id = event.tenant_id
       WHERE endpoint.enabled AND endpoint.deleted_at IS NULL
         AND (jsonb_typeof(endpoint.events) <> 'array' OR endpoint.events @> jsonb_build_array(event.type))
      RETURNING id
    )
    SELECT * FROM updated`;
}

function settleParameters(payment, callback, items) {
  const at = new Date();
  const receipt = items.get("MpesaReceiptNumber");
  const settled = { ...payment, status: "SUCCESS", mpesa_receipt: receipt, updated_at: at };
  delete settled.receipt_elsewhere;
  const eventId = `evt_${randomUUID().replace(/-/g, "")}`;
  const body = JSON.stringify({ id: eventId, type: "payment.succeeded", created_at: at.toISOString(), tenant_id: settled.tenant_id, data: { payment: settled } });
  return [payment.id, String(callback.ResultCode), callback.ResultDesc, receipt, items.get("Amount"), String(items.get("PhoneNumber")), String(items.get("TransactionDate")), eventId, payment.tenant_id, at, body];
}
