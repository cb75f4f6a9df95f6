/**
 * C2B (docs/daraja-simulator.md#c2b): the register URL (v1 and v2) stores a short code's validation
 * and confirmation URLs; `POST /sim/c2b/pay` is the customer paying the paybill (or till) from the
 * M-Pesa menu: validation first (its answer accepts, or a C2B000xx code cancels; no answer in time or
 * an HTTP error: the registered ResponseType decides), then the confirmation, in Daraja's wire format.
 */
import { createHash } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { invalidField, isAcceptableCallbackUrl, readJsonBody, requireAccessToken, sendDarajaError, sendProblem, text } from "../http.js";
import type { ResolvedSimulatorOptions } from "../options.js";
import { pushBounded } from "../state.js";
import type { C2bRegistration, CallbackKind, SimulatorState } from "../state.js";
import { eatTimestamp, newOriginatorConversationId, newReceipt, normalisePhone } from "../wire.js";

const SHORT_CODE = /^\d{5,7}$/;
const REJECTION = /^C2B000(1[1-6])$/;

const payRequestSchema = z.object({
  short_code: z.string().regex(SHORT_CODE).optional(),
  account: z.string().max(20).default(""),
  amount: z.number().int().positive(),
  phone: z
    .string()
    .transform((phone, context) => normalisePhone(phone) ?? (context.addIssue({ code: "custom", message: "not a Kenyan mobile number" }), z.NEVER))
    .default("254708374149"),
  /** How MSISDN is sent: masked (v2, default), hashed (SHA-256 hex of the 12 digits; a convention) or plain (older payloads). */
  msisdn: z.enum(["masked", "hashed", "plain"]).default("masked"),
  /** false: external validation is not enabled for this short code (Daraja's default): confirmation only. */
  validation: z.boolean().default(true),
  command: z.enum(["CustomerPayBillOnline", "CustomerBuyGoodsOnline"]).default("CustomerPayBillOnline"),
  /** Fault mode: the confirmation is delivered twice. */
  repeat_confirmation: z.boolean().default(false),
});

function msisdnAs(phone: string, mode: "masked" | "hashed" | "plain"): string {
  if (mode === "plain") return phone;
  if (mode === "hashed") return createHash("sha256").update(phone).digest("hex");
  return `${phone.slice(0, 4)} ***** ${phone.slice(-3)}`;
}

interface Exchange {
  status: number | null;
  body: unknown;
  error: string | null;
}

export function registerC2bRoutes(app: FastifyInstance, options: ResolvedSimulatorOptions, state: SimulatorState): void {
  for (const version of ["v1", "v2"] as const) {
    app.post(`/mpesa/c2b/${version}/registerurl`, async (request, reply) => {
      if (!requireAccessToken(request, reply, options, state)) return reply;
      if (!options.c2bRegisterVersions.includes(version)) {
        return sendDarajaError(reply, 401, "401.003.01", "Error Occurred - Invalid Access Token - Invalid API call as no apiproduct match found");
      }
      const body = readJsonBody(request, reply, "ShortCode");
      if (!body) return reply;
      const shortCode = text(body["ShortCode"]);
      if (!shortCode || !SHORT_CODE.test(shortCode)) return sendProblem(reply, invalidField("ShortCode"));
      const responseType = body["ResponseType"];
      if (responseType !== "Completed" && responseType !== "Cancelled") return sendProblem(reply, invalidField("ResponseType"));
      for (const field of ["ConfirmationURL", "ValidationURL"] as const) {
        if (!isAcceptableCallbackUrl(body[field], options.blockCallbackKeywords)) return sendProblem(reply, invalidField(field));
      }
      const registration: C2bRegistration = {
        shortCode,
        responseType,
        confirmationUrl: body["ConfirmationURL"] as string,
        validationUrl: body["ValidationURL"] as string,
        version,
      };
      state.c2bRegistrations.set(shortCode, registration);
      // Daraja's own spelling of the key (no "n"), as both portal pages show it.
      return { OriginatorCoversationID: newOriginatorConversationId(), ResponseCode: "0", ResponseDescription: "Success" };
    });
  }

  async function exchange(kind: CallbackKind, url: string, body: unknown, timeoutMs: number): Promise<Exchange> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    const entry = { at: options.now().toISOString(), kind, url, body, status: null as number | null, error: null as string | null };
    try {
      const response = await options.fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body), signal: controller.signal });
      entry.status = response.status;
      const raw = await response.text();
      let parsed: unknown = raw;
      try {
        parsed = JSON.parse(raw) as unknown;
      } catch {
        // kept as text
      }
      return { status: response.status, body: parsed, error: null };
    } catch (error) {
      entry.error = controller.signal.aborted ? "timed out" : error instanceof Error ? error.message : String(error);
      return { status: null, body: null, error: entry.error };
    } finally {
      clearTimeout(timer);
      pushBounded(state.callbacks, entry, options.logLimit);
    }
  }

  /** What the validation answer means to M-Pesa: complete, cancel with a code, or no usable answer. */
  function readValidation(answer: Exchange): { verdict: "accepted" | "rejected" | "no_answer" | "unreadable"; resultCode: string | null; thirdPartyTransId: string } {
    if (answer.status === null || answer.status < 200 || answer.status >= 300) return { verdict: "no_answer", resultCode: null, thirdPartyTransId: "" };
    if (typeof answer.body !== "object" || answer.body === null) return { verdict: "unreadable", resultCode: null, thirdPartyTransId: "" };
    const fields = answer.body as Record<string, unknown>;
    const resultCode = text(fields["ResultCode"]);
    const thirdPartyTransId = text(fields["ThirdPartyTransID"]) ?? "";
    if (resultCode === "0") return { verdict: "accepted", resultCode, thirdPartyTransId };
    if (resultCode !== null && REJECTION.test(resultCode)) return { verdict: "rejected", resultCode, thirdPartyTransId };
    return { verdict: "unreadable", resultCode, thirdPartyTransId };
  }

  app.post("/sim/c2b/pay", async (request, reply) => {
    let json: unknown = {};
    try {
      json = typeof request.body === "string" && request.body.trim() !== "" ? (JSON.parse(request.body) as unknown) : {};
    } catch {
      return reply.code(400).send({ error: "body is not JSON" });
    }
    const parsed = payRequestSchema.safeParse(json);
    if (!parsed.success) return reply.code(400).send({ error: z.prettifyError(parsed.error) });
    const pay = parsed.data;
    const shortCode = pay.short_code ?? options.shortcode;
    let transId = newReceipt();
    while (state.c2bTransIds.has(transId)) transId = newReceipt();
    state.c2bTransIds.add(transId);
    const notification = {
      TransactionType: pay.command === "CustomerBuyGoodsOnline" ? "Buy Goods" : "Pay Bill",
      TransID: transId,
      TransTime: eatTimestamp(options.now()),
      TransAmount: `${pay.amount}.00`,
      BusinessShortCode: shortCode,
      BillRefNumber: pay.command === "CustomerBuyGoodsOnline" ? "" : pay.account,
      InvoiceNumber: "",
      OrgAccountBalance: "",
      ThirdPartyTransID: "",
      MSISDN: msisdnAs(pay.phone, pay.msisdn),
      FirstName: "JOHN",
      MiddleName: "",
      LastName: "",
    };
    const complete = () =>
      state.c2bPayments.set(transId, { transId, phone: pay.phone, amount: pay.amount, shortCode, command: pay.command, completedAt: options.now() });
    const registration = state.c2bRegistrations.get(shortCode);
    // No URLs registered: M-PESA completes the payment and tells nobody.
    if (!registration) {
      complete();
      return { trans_id: transId, status: "completed", reason: "no URLs registered for this short code", validation: null, confirmation: null };
    }

    let validation: (Exchange & { verdict: string; result_code: string | null }) | null = null;
    let thirdPartyTransId = "";
    if (pay.validation) {
      const answer = await exchange("c2b_validation", registration.validationUrl, notification, options.c2bValidationTimeoutMs);
      const read = readValidation(answer);
      validation = { ...answer, verdict: read.verdict, result_code: read.resultCode };
      thirdPartyTransId = read.thirdPartyTransId;
      const cancelled =
        read.verdict === "rejected" || read.verdict === "unreadable" || (read.verdict === "no_answer" && registration.responseType === "Cancelled");
      if (cancelled) {
        const reason = read.verdict === "rejected" ? `rejected with ${read.resultCode}` : read.verdict === "unreadable" ? "unreadable validation answer" : "no validation answer; ResponseType Cancelled";
        return { trans_id: transId, status: "cancelled", reason, validation, confirmation: null };
      }
    }
    state.utilityBalance += pay.amount;
    complete();
    const confirmationBody = { ...notification, OrgAccountBalance: state.utilityBalance.toFixed(2), ThirdPartyTransID: thirdPartyTransId };
    const confirmation = await exchange("c2b_confirmation", registration.confirmationUrl, confirmationBody, options.callbackTimeoutMs);
    if (pay.repeat_confirmation) await exchange("c2b_confirmation", registration.confirmationUrl, confirmationBody, options.callbackTimeoutMs);
    const reason = validation?.verdict === "no_answer" ? "no validation answer; ResponseType Completed" : pay.validation ? "accepted" : "validation not enabled";
    return { trans_id: transId, status: "completed", reason, validation, confirmation };
  });
}
