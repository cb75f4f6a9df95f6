/**
 * Hearing of payment status changes committed by any instance (docs/deployment.md#status-across-instances).
 * The trigger of migration 20261201000000_payment_status_notify announces each change on one channel when
 * its transaction commits; an instance listens on one connection of its own, outside its pool: LISTEN
 * holds a server session, which a pool hands out for a statement at a time (and a transaction-pooling
 * PgBouncer to other clients), so this connection goes to DATABASE_LISTEN_URL, direct or session-pooled.
 *
 * The connection reconnects by itself (a database restart, a network cut), with a growing pause. Notices
 * sent while it was away are lost for good, so every (re)start of listening is reported: what waits on
 * notices then re-checks once. A heartbeat finds a connection that died without a word (no FIN).
 */
import pg from "pg";

export const paymentStatusChannel = "mteja_payment_status";

/** The listening connection's application_name, as pg_stat_activity shows it. */
export const listenerName = "mteja-status-listener";

export interface PaymentStatusNotice {
  paymentId: string;
  tenantId: string;
  checkoutRequestId: string | null;
  status: string;
}

export interface PaymentStatusListenerEvents {
  onNotice(notice: PaymentStatusNotice): void;
  /** Listening, first or again: notices sent before this moment were not heard. */
  onListening(again: boolean): void;
  /** Not listening any more (or could not start): once per outage, not once per failed attempt. */
  onLost(error: Error): void;
}

export interface PaymentStatusListenerOptions {
  /** First pause before reconnecting; doubles up to `maxRetryMs` (defaults 250 ms and 5 s). */
  minRetryMs?: number;
  maxRetryMs?: number;
  /** A statement on the idle connection this often, to find one that died silently (default 15 s). */
  heartbeatMs?: number;
}

export interface PaymentStatusListener {
  listening(): boolean;
  close(): Promise<void>;
}

/** The trigger's JSON payload, or undefined for anything else. */
export function parsePaymentStatusNotice(payload: string): PaymentStatusNotice | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload);
  } catch {
    return undefined;
  }
  const row = parsed as Record<string, unknown> | null;
  const { id, tenant_id: tenantId, status } = row ?? {};
  if (typeof id !== "string" || typeof tenantId !== "string" || typeof status !== "string") return undefined;
  const checkoutRequestId = typeof row?.checkout_request_id === "string" ? row.checkout_request_id : null;
  return { paymentId: id, tenantId, checkoutRequestId, status };
}

export function listenForPaymentStatus(
  url: string,
  events: PaymentStatusListenerEvents,
  options: PaymentStatusListenerOptions = {},
): PaymentStatusListener {
  const minRetryMs = options.minRetryMs ?? 250;
  const maxRetryMs = options.maxRetryMs ?? 5_000;
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  let state: "starting" | "listening" | "lost" | "closed" = "starting";
  let heardBefore = false;
  let current: pg.Client | undefined;
  let retryMs = minRetryMs;
  let retry: NodeJS.Timeout | undefined;
  let heartbeat: NodeJS.Timeout | undefined;

  function lose(client: pg.Client, error: Error): void {
    if (current !== client) return;
    current = undefined;
    clearInterval(heartbeat);
    client.end().catch(() => undefined);
    if (state === "closed") return;
    const wasUp = state === "listening" || state === "starting";
    state = "lost";
    if (wasUp) events.onLost(error);
    retry = setTimeout(connect, retryMs);
    retry.unref();
    retryMs = Math.min(retryMs * 2, maxRetryMs);
  }

  async function connect(): Promise<void> {
    if (state === "closed") return;
    const client = new pg.Client({
      connectionString: url,
      application_name: listenerName,
      keepAlive: true,
      connectionTimeoutMillis: 5_000,
      query_timeout: 5_000,
    });
    current = client;
    client.on("error", (error) => lose(client, error));
    client.on("end", () => lose(client, new Error("the listening connection ended")));
    client.on("notification", (message) => {
      if (message.channel !== paymentStatusChannel || !message.payload) return;
      const notice = parsePaymentStatusNotice(message.payload);
      if (notice) events.onNotice(notice);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${paymentStatusChannel}`);
    } catch (error) {
      lose(client, error as Error);
      return;
    }
    // Closed, or lost, meanwhile.
    if (current !== client) return;
    state = "listening";
    retryMs = minRetryMs;
    const beat = () => void client.query("SELECT 1 AS listener_heartbeat").catch((error: Error) => lose(client, error));
    heartbeat = setInterval(beat, heartbeatMs);
    heartbeat.unref();
    events.onListening(heardBefore);
    heardBefore = true;
  }

  void connect();
  return {
    listening: () => state === "listening",
    async close() {
      state = "closed";
      clearTimeout(retry);
      clearInterval(heartbeat);
      const client = current;
      current = undefined;
      await client?.end().catch(() => undefined);
    },
  };
}
