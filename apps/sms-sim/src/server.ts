/**
 * A local stand-in for Africa's Talking's SMS API (docs/sms.md): `POST /version1/messaging`
 * with its form body, `apiKey` header and answers (201 and SMSMessageData, the plain-text 401, a
 * request refused with no recipients, per-recipient codes), delivery reports posted to a URL, and
 * control endpoints under /sim for tests and the dev outbox: the texts received, scripted failures.
 */
import Fastify, { type FastifyInstance } from "fastify";
import { smsSimulatorDefaults } from "./defaults.js";
import { newMessageId, partsOf, requestRefused, sendAnswer, STATUS_NAMES, type Recipient } from "./wire.js";

export interface SmsSimulatorOptions {
  username?: string;
  apiKey?: string;
  /** Registered sender IDs; a `from` outside them refuses the request (`InvalidSenderId`). */
  senderIds?: readonly string[];
  /** Where delivery reports go (the service's `/api/sms/callback/delivery?token=…`); none: no reports. */
  deliveryReportUrl?: string | undefined;
  dlrDelayMs?: number;
  /** `99999` (Athena) as the sandbox does, or Kenyan network codes. */
  sandbox?: boolean;
  logger?: boolean;
}

/** A failure the next request(s) meet, set by a test or a developer (POST /sim/script). */
export type SmsScript =
  | { kind: "unauthorized" }
  | { kind: "http"; status: number; body?: string }
  | { kind: "request_refused"; message: string }
  | { kind: "recipient"; statusCode: number; number?: string }
  | { kind: "delivery"; status: "Failed" | "Rejected" | "none"; failureReason?: string };

export interface ReceivedText {
  messageId: string | null;
  to: string;
  from: string | null;
  message: string;
  statusCode: number;
  parts: number;
  receivedAt: string;
}

export interface DeliveryReportSent {
  url: string;
  form: Record<string, string>;
  status: number | null;
}

export interface SmsSimulator {
  app: FastifyInstance;
  /** Every text received, oldest first (rejected ones too, with their status code). */
  texts: ReceivedText[];
  reports: DeliveryReportSent[];
  script(script: SmsScript): void;
  setDeliveryReportUrl(url: string | undefined): void;
  listen(opts: { host: string; port: number }): Promise<string>;
  close(): Promise<void>;
}

const VALID_NUMBER = /^\+\d{6,15}$/;

function networkCodeOf(number: string, sandbox: boolean): string {
  if (sandbox) return "99999";
  if (/^\+2547[3-9]|^\+25410/.test(number)) return "63903";
  return "63902";
}

export function buildSmsSimulator(options: SmsSimulatorOptions = {}): SmsSimulator {
  const username = options.username ?? smsSimulatorDefaults.username;
  const apiKey = options.apiKey ?? smsSimulatorDefaults.apiKey;
  const senderIds = new Set(options.senderIds ?? smsSimulatorDefaults.senderIds);
  const dlrDelayMs = options.dlrDelayMs ?? smsSimulatorDefaults.dlrDelayMs;
  let deliveryReportUrl = options.deliveryReportUrl;
  const scripts: SmsScript[] = [];
  const texts: ReceivedText[] = [];
  const reports: DeliveryReportSent[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const app = Fastify({ logger: options.logger ?? false });

  app.addContentTypeParser("application/x-www-form-urlencoded", { parseAs: "string" }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  function takeScript<K extends SmsScript["kind"]>(kind: K, match?: (s: Extract<SmsScript, { kind: K }>) => boolean): Extract<SmsScript, { kind: K }> | undefined {
    const index = scripts.findIndex((s) => s.kind === kind && (!match || match(s as Extract<SmsScript, { kind: K }>)));
    if (index < 0) return undefined;
    return scripts.splice(index, 1)[0] as Extract<SmsScript, { kind: K }>;
  }

  async function postReport(form: Record<string, string>): Promise<void> {
    if (!deliveryReportUrl) return;
    const sent: DeliveryReportSent = { url: deliveryReportUrl, form, status: null };
    reports.push(sent);
    try {
      const response = await fetch(deliveryReportUrl, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(form).toString(),
      });
      sent.status = response.status;
    } catch {
      sent.status = null;
    }
  }

  function scheduleReports(recipient: Recipient): void {
    const scripted = takeScript("delivery");
    if (scripted?.status === "none") return;
    const base = { id: recipient.messageId, phoneNumber: recipient.number, networkCode: networkCodeOf(recipient.number, options.sandbox ?? false), retryCount: "0" };
    const final = scripted
      ? { ...base, status: scripted.status, failureReason: scripted.failureReason ?? "DeliveryFailure" }
      : { ...base, status: "Success" };
    const submitted = setTimeout(() => {
      timers.delete(submitted);
      void postReport({ ...base, status: "Submitted" }).then(() => {
        const done = setTimeout(() => {
          timers.delete(done);
          void postReport(final);
        }, dlrDelayMs);
        timers.add(done);
      });
    }, dlrDelayMs);
    timers.add(submitted);
  }

  app.post("/version1/messaging", async (request, reply) => {
    const key = request.headers["apikey"];
    if (takeScript("unauthorized") || key !== apiKey) {
      return reply.code(401).type("text/plain").send("The supplied authentication is invalid");
    }
    const http = takeScript("http");
    if (http) return reply.code(http.status).type("text/plain").send(http.body ?? "Internal Server Error");
    const body = (request.body ?? {}) as Record<string, string | undefined>;
    if (body.username !== username) return reply.code(401).type("text/plain").send("The supplied authentication is invalid");
    // Missing fields: Africa's Talking's answer is undocumented; this one is the simulator's own.
    if (!body.to || !body.message) return reply.code(400).type("text/plain").send("Simulator: to and message are required");
    const from = body.from ?? null;
    const refused = takeScript("request_refused");
    if (refused) return reply.code(201).send(requestRefused(refused.message));
    if (from !== null && !senderIds.has(from)) return reply.code(201).send(requestRefused("InvalidSenderId"));

    const parts = partsOf(body.message);
    const recipients = body.to.split(",").map((raw): Recipient => {
      const number = raw.trim();
      const override = takeScript("recipient", (s) => s.number === undefined || s.number === number);
      const statusCode = override?.statusCode ?? (VALID_NUMBER.test(number) ? 101 : 403);
      const accepted = statusCode >= 100 && statusCode <= 102;
      return {
        statusCode,
        number,
        status: statusCode === 101 ? "Success" : (STATUS_NAMES[statusCode] ?? "Unknown"),
        cost: accepted ? `KES ${(smsSimulatorDefaults.costPerPart * parts).toFixed(4)}` : "0",
        messageId: accepted ? newMessageId() : "None",
      };
    });
    for (const recipient of recipients) {
      const accepted = recipient.statusCode >= 100 && recipient.statusCode <= 102;
      texts.push({
        messageId: accepted ? recipient.messageId : null,
        to: recipient.number,
        from,
        message: body.message,
        statusCode: recipient.statusCode,
        parts,
        receivedAt: new Date().toISOString(),
      });
      if (accepted) scheduleReports(recipient);
    }
    return reply.code(201).send(sendAnswer(recipients));
  });

  // Control endpoints (the AT Simulator phone's role): read what arrived, script what comes next.
  app.get("/sim/messages", async (request) => {
    const to = (request.query as { to?: string }).to;
    return { messages: [...texts].reverse().filter((t) => !to || t.to === to) };
  });
  app.delete("/sim/messages", async () => {
    texts.length = 0;
    reports.length = 0;
    return { cleared: true };
  });
  app.post("/sim/script", async (request, reply) => {
    const script = request.body as SmsScript | undefined;
    if (!script || typeof script !== "object" || !["unauthorized", "http", "request_refused", "recipient", "delivery"].includes(script.kind)) {
      return reply.code(400).send({ error: "kind must be unauthorized, http, request_refused, recipient or delivery" });
    }
    scripts.push(script);
    return { queued: scripts.length };
  });
  app.get("/sim/delivery-reports", async () => ({ reports }));

  return {
    app,
    texts,
    reports,
    script: (script) => void scripts.push(script),
    setDeliveryReportUrl: (url) => {
      deliveryReportUrl = url;
    },
    async listen(opts) {
      await app.listen(opts);
      const address = app.server.address();
      const port = typeof address === "object" && address ? address.port : opts.port;
      return `http://${opts.host}:${port}`;
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      await app.close();
    },
  };
}
