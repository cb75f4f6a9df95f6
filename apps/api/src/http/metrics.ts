/**
 * Prometheus metrics at GET /metrics, on a registry the composition root owns (never prom-client's
 * global one, so two servers in one process — the tests — never share counters).
 *
 * - mteja_http_requests_total / mteja_http_request_duration_seconds by method, route pattern, status
 *   (REST operations by their OpenAPI path, tRPC calls by procedure; never the raw URL)
 * - mteja_auth_logins_total by step (password | otp) and outcome (success, requires_otp, or the error code),
 *   reported by the domain through its events port (Metrics is the DomainEvents of deps.events)
 * - mteja_password_breach_checks_total by outcome (breached, clear, skipped: the API did not answer in 2 s)
 * - mteja_captcha_checks_total by flow and outcome (missing, passed, refused, unavailable)
 * - mteja_momo_callbacks_rejected_total by kind, reason and stored: callbacks without the right token
 * - mteja_payments / mteja_payouts by status, mteja_mail_outbox_backlog: read from the database on scrape
 * - mteja_daraja_request_duration_seconds / mteja_daraja_errors_total: fed by instrumentDarajaFetch
 * - mteja_rate_limit_store_shared (with REDIS_URL): 1 while the abuse limits are shared, 0 during a Redis outage
 * - mteja_status_listener_connected (PostgreSQL): 1 while payment status notices are heard, 0 while reconnecting
 *
 * Access: with METRICS_TOKEN set, only `Authorization: Bearer <METRICS_TOKEN>`; without it, only
 * direct connections from the loopback interface (not through a proxy).
 */
import { outboxes, payments as paymentsRepository, payouts as payoutsRepository, type Database } from "@mteja/db";
import { equalsConstantTime, type CaptchaOutcome, type DomainEvents, type PasswordBreachOutcome, type SignInReport } from "@mteja/domain";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { RateLimitStore } from "../runtime/rate-limit-store.js";
import type { StatusListener } from "./system-routes.js";
import { isDirectLoopback } from "./loopback.js";

export type DarajaOutcome = "ok" | "http_error" | "timeout" | "network";

/** What the payments code needs to report its Daraja calls (see instrumentDarajaFetch). */
export interface DarajaCallObserver {
  observeDarajaCall(operation: string, outcome: DarajaOutcome, seconds: number): void;
}

export interface Metrics extends DarajaCallObserver, DomainEvents {
  registry: Registry;
  /** The HTTP-layer instruments installMetrics feeds. */
  instruments: Instruments;
  /** A fetch for the Daraja client (`createDarajaClient({ fetch })`) that times and counts every call. */
  instrumentDarajaFetch(fetch?: typeof globalThis.fetch): typeof globalThis.fetch;
}

export interface Instruments {
  requests: Counter<"method" | "route" | "status">;
  duration: Histogram<"method" | "route" | "status">;
  logins: Counter<"step" | "outcome">;
  callbacksRejected: Counter<"kind" | "reason" | "stored">;
  breachChecks: Counter<"outcome">;
  captchaChecks: Counter<"flow" | "outcome">;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  const instruments: Instruments = {
    requests: new Counter({ name: "mteja_http_requests_total", help: "HTTP requests answered, by route pattern and status.", labelNames: ["method", "route", "status"], registers: [registry] }),
    duration: new Histogram({
      name: "mteja_http_request_duration_seconds",
      help: "Time to answer an HTTP request, by route pattern and status.",
      labelNames: ["method", "route", "status"],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    logins: new Counter({
      name: "mteja_auth_logins_total",
      help: "Sign-in attempts by step (password, otp) and outcome (success, requires_otp, or the error code in lower case).",
      labelNames: ["step", "outcome"],
      registers: [registry],
    }),
    callbacksRejected: new Counter({
      name: "mteja_momo_callbacks_rejected_total",
      help: "M-Pesa callbacks refused for a missing or wrong token, by kind, reason (no_token, wrong_token) and whether they were stored for audit.",
      labelNames: ["kind", "reason", "stored"],
      registers: [registry],
    }),
    breachChecks: new Counter({
      name: "mteja_password_breach_checks_total",
      help: "New passwords checked against the breached-password API, by outcome (breached, clear, or skipped: no answer within 2 s).",
      labelNames: ["outcome"],
      registers: [registry],
    }),
    captchaChecks: new Counter({
      name: "mteja_captcha_checks_total",
      help: "CAPTCHA checks by flow and outcome (missing, passed, refused, or unavailable: the verify API did not answer).",
      labelNames: ["flow", "outcome"],
      registers: [registry],
    }),
  };
  const darajaDuration = new Histogram({
    name: "mteja_daraja_request_duration_seconds",
    help: "Time of one HTTP exchange with Daraja, by operation and outcome.",
    labelNames: ["operation", "outcome"],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30],
    registers: [registry],
  });
  const darajaErrors = new Counter({
    name: "mteja_daraja_errors_total",
    help: "Daraja calls that failed: an HTTP error answer, a timeout or a network failure.",
    labelNames: ["operation", "outcome"],
    registers: [registry],
  });

  const observeDarajaCall = (operation: string, outcome: DarajaOutcome, seconds: number) => {
    darajaDuration.observe({ operation, outcome }, seconds);
    if (outcome !== "ok") darajaErrors.inc({ operation, outcome });
  };

  return {
    registry,
    instruments,
    observeDarajaCall,
    signIn: ({ step, outcome }: SignInReport) => instruments.logins.inc({ step, outcome }),
    passwordBreachCheck: (outcome: PasswordBreachOutcome) => instruments.breachChecks.inc({ outcome }),
    captchaCheck: ({ flow, outcome }: { flow: string; outcome: CaptchaOutcome }) => instruments.captchaChecks.inc({ flow, outcome }),
    instrumentDarajaFetch(inner = globalThis.fetch) {
      return async (input, init) => {
        const operation = darajaOperation(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
        const started = performance.now();
        const seconds = () => (performance.now() - started) / 1000;
        try {
          const response = await inner(input, init);
          observeDarajaCall(operation, response.ok ? "ok" : "http_error", seconds());
          return response;
        } catch (error) {
          const name = (error as { name?: unknown } | null)?.name;
          observeDarajaCall(operation, name === "TimeoutError" || name === "AbortError" ? "timeout" : "network", seconds());
          throw error;
        }
      };
    },
  };
}

/** Daraja's paths name their operation; anything else is "other" (bounded label values). */
const darajaOperations: Array<[RegExp, string]> = [
  [/\/oauth\/v1\/generate/, "oauth"],
  [/\/mpesa\/stkpush\/v1\/processrequest/, "stkpush"],
  [/\/mpesa\/stkpushquery\/v1\/query/, "stkquery"],
  [/\/mpesa\/b2c\//, "b2c"],
  [/\/mpesa\/transactionstatus\//, "transaction_status"],
  [/\/pulltransactions\/v1\/register/, "pull_register"],
  [/\/pulltransactions\/v1\/query/, "pull_query"],
  [/\/mpesa\/qrcode\//, "dynamic_qr"],
];

export function darajaOperation(url: string): string {
  const path = url.replace(/^[a-z]+:\/\/[^/]+/i, "").split("?")[0] ?? "";
  return darajaOperations.find(([pattern]) => pattern.test(path))?.[1] ?? "other";
}

export interface MetricsRoutesOptions {
  metrics: Metrics;
  db: Database;
  /** METRICS_TOKEN; unset means loopback only. */
  token: string | undefined;
  /** The REST operation (its OpenAPI path) of a request to the REST mount (label values come only from here). */
  restOperation: (method: string, path: string) => string | undefined;
  /** The Fastify route pattern of the REST mount. */
  restMountPattern: string;
  /** Every tRPC procedure path ("auth.login"): label values of the tRPC mount come only from here. */
  procedures: ReadonlySet<string>;
  /** With REDIS_URL: whether the abuse-limit counters are shared right now (mteja_rate_limit_store_shared). */
  rateLimitStore?: RateLimitStore | undefined;
  /** On PostgreSQL: whether this instance hears other instances' status changes (mteja_status_listener_connected). */
  statusListener?: StatusListener | undefined;
}

/** The procedures a tRPC path names (`a.b,c.d` for a batch); undefined when it does not decode. */
function procedureNames(path: string): string[] | undefined {
  try {
    return decodeURIComponent(path).split(",");
  } catch {
    return undefined;
  }
}

/** Hooks on the root instance (so they see every route) plus the /metrics route. */
export function installMetrics(app: FastifyInstance, options: MetricsRoutesOptions): void {
  const { instruments, registry } = options.metrics;
  const routeOf = (request: FastifyRequest): string => {
    const pattern = request.routeOptions.url;
    if (pattern === "/trpc/:path") {
      const names = procedureNames((request.params as { path?: string } | undefined)?.path ?? "");
      const known = names !== undefined && names.every((name) => options.procedures.has(name));
      return !known ? "/trpc/(unknown)" : names.length === 1 ? `/trpc/${names[0]}` : "/trpc/(batch)";
    }
    if (pattern === options.restMountPattern) return options.restOperation(request.method, request.url.split("?")[0] ?? "") ?? "(unmatched)";
    return pattern ?? "(unmatched)";
  };

  // One pair of children per label set, made once: given the labels, prom-client sorts and hashes
  // them on every call, twice a request. Label values are bounded (routes, methods, statuses), so are these.
  const answered = new Map<string, { count(): void; time(seconds: number): void }>();
  const instrumentsFor = (method: string, route: string, status: string) => {
    const key = `${method} ${status} ${route}`;
    let known = answered.get(key);
    if (!known) {
      const labels = { method, route, status };
      const requests = instruments.requests.labels(labels);
      const duration = instruments.duration.labels(labels);
      known = { count: () => requests.inc(), time: (seconds) => duration.observe(seconds) };
      answered.set(key, known);
    }
    return known;
  };

  // The route is worked out once the answer is sent, from what the request still holds: a map from
  // requests to routes kept since onRequest would tie every request in flight to a long-lived table.
  app.addHook("onResponse", (request, reply, done) => {
    const route = routeOf(request);
    // The status the response went out with (the raw one).
    const status = reply.raw.statusCode;
    const answer = instrumentsFor(request.method, route, String(status));
    answer.count();
    answer.time(reply.elapsedTime / 1000);
    done();
  });

  const payments = new Gauge({ name: "mteja_payments", help: "Stored STK payments by status (all tenants; the same value on every instance).", labelNames: ["status"], registers: [registry] });
  const payouts = new Gauge({ name: "mteja_payouts", help: "Stored B2C payouts by status (all tenants).", labelNames: ["status"], registers: [registry] });
  const backlog = new Gauge({ name: "mteja_mail_outbox_backlog", help: "Mails written to the outbox and not sent yet.", registers: [registry] });
  const oldest = new Gauge({ name: "mteja_mail_outbox_oldest_unsent_seconds", help: "Age of the oldest unsent mail (0 when none).", registers: [registry] });
  const scrapeErrors = new Counter({ name: "mteja_metrics_database_errors_total", help: "Scrapes whose database figures could not be read.", registers: [registry] });
  const store = options.rateLimitStore;
  if (store) {
    new Gauge({
      name: "mteja_rate_limit_store_shared",
      help: "1 while the abuse-limit counters are shared in Redis; 0 while Redis is unreachable and this instance counts alone.",
      registers: [registry],
      collect() {
        this.set(store.state() === "connected" ? 1 : 0);
      },
    });
  }
  const listener = options.statusListener;
  if (listener) {
    new Gauge({
      name: "mteja_status_listener_connected",
      help:
        "1 while this instance listens for payment status notices; 0 while it reconnects (its subscribers see " +
        "other instances' changes at their 2 s re-check).",
      registers: [registry],
      collect() {
        this.set(listener.state() === "connected" ? 1 : 0);
      },
    });
  }

  const readDatabaseFigures = async () => {
    try {
      const db = options.db.unscoped("metrics");
      const [paymentCounts, payoutCounts, outbox] = [
        await paymentsRepository.countByStatus(db),
        await payoutsRepository.countByStatus(db),
        await outboxes.mailBacklog(db),
      ];
      payments.reset();
      for (const { status, count } of paymentCounts) payments.set({ status }, count);
      payouts.reset();
      for (const { status, count } of payoutCounts) payouts.set({ status }, count);
      backlog.set(outbox.count);
      oldest.set(outbox.oldestAgeSeconds);
    } catch {
      scrapeErrors.inc();
    }
  };

  app.get("/metrics", async (request, reply) => {
    if (!allowed(request, options.token)) {
      // Without a token the endpoint does not exist for outsiders; with one, it asks for it.
      if (options.token) void reply.header("WWW-Authenticate", 'Bearer realm="metrics"');
      return reply.code(options.token ? 401 : 404).send({ success: false, message: options.token ? "A metrics token is required." : "Not found.", error: { code: options.token ? "AUTH_REQUIRED" : "NOT_FOUND" } });
    }
    await readDatabaseFigures();
    void reply.header("Content-Type", registry.contentType).header("Cache-Control", "no-store");
    return registry.metrics();
  });
}

function allowed(request: FastifyRequest, token: string | undefined): boolean {
  if (token) {
    const given = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1] ?? "";
    return equalsConstantTime(given, token);
  }
  return isDirectLoopback(request);
}
