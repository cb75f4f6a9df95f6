/**
 * Daraja's callbacks (docs/mpesa.md#callbacks) as plain Fastify routes: their bodies are Daraja's, not ours, so
 * they bypass the tRPC/OpenAPI mounts. Every body is read as raw text (whatever its content type, even
 * invalid JSON) so it can be stored verbatim before anything else; the domain does the rest.
 *
 *   POST /api/momo/callback/stkpush        STK push result        (MOMO_CALLBACK_URL)
 *   POST /api/momo/callback/b2c/result     B2C result             (MOMO_B2C_RESULT_URL)
 *   POST /api/momo/callback/b2c/timeout    B2C queue time-out     (MOMO_B2C_TIMEOUT_URL)
 *   POST /api/momo/callback/b2c/status     Transaction Status result and time-out (MOMO_B2C_STATUS_URL)
 *   POST /api/momo/callback/reversal/result   Reversal result       (MOMO_REVERSAL_RESULT_URL)
 *   POST /api/momo/callback/reversal/timeout  Reversal time-out     (MOMO_REVERSAL_TIMEOUT_URL)
 *   POST /api/momo/callback/reversal/status   a reversal's Transaction Status result and time-out
 *   POST /api/momo/callback/c2b/validation    C2B validation: answers accept or Daraja's rejection code (MOMO_C2B_VALIDATION_URL)
 *   POST /api/momo/callback/c2b/confirmation  C2B confirmation (MOMO_C2B_CONFIRMATION_URL)
 */
import { receiveCallback, type CallbackKind, type Deps } from "@mteja/domain";
import type { FastifyPluginAsync } from "fastify";
import type { Counter } from "prom-client";
import { z } from "zod";
import { createLogThrottle, type LogThrottle } from "./log-throttle.js";

/** Rejected callbacks (no or wrong token) are logged at most once a minute; the metric counts each one. */
const REJECTED_LOG_INTERVAL_MS = 60_000;

export interface MomoCallbackOptions {
  deps: Deps;
  /** mteja_momo_callbacks_rejected_total (http/metrics.ts). */
  rejectedCallbacks: Counter<"kind" | "reason" | "stored">;
}

export const momoCallbackRoutes: Record<string, CallbackKind> = {
  "/api/momo/callback/stkpush": "stkpush",
  "/api/momo/callback/b2c/result": "b2c_result",
  "/api/momo/callback/b2c/timeout": "b2c_timeout",
  "/api/momo/callback/b2c/status": "b2c_status",
  "/api/momo/callback/reversal/result": "reversal_result",
  "/api/momo/callback/reversal/timeout": "reversal_timeout",
  "/api/momo/callback/reversal/status": "reversal_status",
  "/api/momo/callback/c2b/validation": "c2b_validation",
  "/api/momo/callback/c2b/confirmation": "c2b_confirmation",
};

export const momoCallbackPlugin: FastifyPluginAsync<MomoCallbackOptions> = async (app, { deps, rejectedCallbacks }) => {
  const rejectedLog = createLogThrottle(REJECTED_LOG_INTERVAL_MS, () => deps.clock.now());
  // One per shop whose real token carries callbacks that settle nothing (its token is real, so there are no more than shops).
  const unsettledLogs = new Map<string, LogThrottle>();
  const unsettledLog = (tenantId: string | null) => {
    const key = tenantId ?? "";
    let throttle = unsettledLogs.get(key);
    if (!throttle) unsettledLogs.set(key, (throttle = createLogThrottle(REJECTED_LOG_INTERVAL_MS, () => deps.clock.now())));
    return throttle;
  };
  // Scoped to this plugin: the rest of the service keeps its JSON parser.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "string" }, (_request, body, done) => done(null, body));

  for (const [path, kind] of Object.entries(momoCallbackRoutes)) {
    // warn: Fastify's per-request info logs would write the URL, and with it the secret token.
    app.post(path, { logLevel: "warn" }, async (request, reply) => {
      const query = request.query as Record<string, unknown>;
      const token = typeof query.token === "string" ? query.token : undefined;
      const rawBody = typeof request.body === "string" ? request.body : "";
      const reference = typeof query.ref === "string" ? query.ref : undefined;
      const tenant = typeof query.tenant === "string" ? query.tenant : undefined;
      const answer = await receiveCallback(deps, { kind, rawBody, sourceIp: request.ip, token, tenant, reference });
      if (answer.rejected) {
        const { reason, stored } = answer.rejected;
        rejectedCallbacks.inc({ kind, reason: reason.replace(" ", "_"), stored: String(stored) });
        const line = rejectedLog.take();
        if (line.log) {
          deps.logger.warn(
            { kind, sourceIp: request.ip, reason, stored, notLoggedSinceLastLine: line.heldBack },
            "momo callback rejected (missing or wrong token); further ones within a minute are only counted (mteja_momo_callbacks_rejected_total)",
          );
        }
      }
      if (answer.overUnsettledLimit) {
        const { tenantId, bodyCut } = answer.overUnsettledLimit;
        const line = unsettledLog(tenantId).take();
        if (line.log) {
          deps.logger.warn(
            { kind, tenantId, bodyCut, notLoggedSinceLastLine: line.heldBack },
            "momo callbacks with this shop's real token that settle nothing passed unmatched_callbacks_stored_per_tenant: still stored and applied, bodies over 8 KiB cut; if Daraja did not send them, the shop's callback URL has leaked (rotate MOMO_CALLBACK_SECRET)",
          );
        }
      }
      return reply.code(answer.status).header("cache-control", "no-store").send(answer.body);
    });
  }
};

const tokenParameter = {
  name: "token",
  in: "query" as const,
  required: true,
  description:
    "The shop's callback token, derived from MOMO_CALLBACK_SECRET (the service puts it in the callback URLs it gives Daraja); MOMO_CALLBACK_SECRET itself only for requests sent before shops had their own.",
  schema: { type: "string" as const },
};

const tenantParameter = {
  name: "tenant",
  in: "query" as const,
  required: false,
  description: "The shop whose token `token` is (its id, hex-encoded); the callback is refused (403) for another shop's payment, payout, reversal or short code.",
  schema: { type: "string" as const },
};

const accepted = {
  description: "Stored and applied (or recorded as duplicate/flagged); answered only after the commit.",
  content: { "application/json": { schema: z.object({ ResultCode: z.literal(0), ResultDesc: z.literal("Accepted") }) } },
};

const c2bValidationAnswered = {
  description: "Stored, then answered: accepted, or rejected with Daraja's code (the customer gets M-Pesa's SMS for it).",
  content: {
    "application/json": {
      schema: z.object({ ResultCode: z.enum(["0", "C2B00012", "C2B00013", "C2B00015"]), ResultDesc: z.enum(["Accepted", "Rejected"]) }),
    },
  },
};

const c2bConfirmationAnswered = {
  description: "Stored and applied once per TransID (or recorded as duplicate/flagged); answered only after the commit.",
  content: { "application/json": { schema: z.object({ ResultCode: z.literal(0), ResultDesc: z.literal("Success") }) } },
};

function callbackOperation(summary: string, body: string, answered: { description: string; content: { "application/json": { schema: z.ZodType } } } = accepted) {
  return {
    post: {
      tags: ["momo callbacks"],
      summary,
      description: `Called by Daraja, not by clients. ${body} Stored verbatim first, then applied exactly once.`,
      parameters: [tokenParameter, tenantParameter],
      requestBody: { required: true, content: { "application/json": { schema: z.object({}).passthrough() } } },
      responses: {
        200: answered,
        400: { description: "MALFORMED_REQUEST: not JSON or not a Daraja callback (stored for audit)" },
        403: { description: "FORBIDDEN: missing or wrong token (counted; at most 60 a minute stored for audit; logged at most once a minute)" },
        503: { description: "SERVICE_UNAVAILABLE: the database is away for a moment (Retry-After)" },
      },
    },
  };
}

/** The callback endpoints in the OpenAPI document (generateOpenApiDocument's `paths`). */
export function momoCallbackOpenApiPaths() {
  return {
    "/api/momo/callback/stkpush": callbackOperation("STK push result", "Body: `{ Body: { stkCallback: { MerchantRequestID, CheckoutRequestID, ResultCode, ResultDesc, CallbackMetadata? } } }`."),
    "/api/momo/callback/b2c/result": callbackOperation("B2C result", "Body: `{ Result: { ResultCode, ResultDesc, OriginatorConversationID, ConversationID, TransactionID, ResultParameters? } }`."),
    "/api/momo/callback/b2c/timeout": callbackOperation("B2C queue time-out", "The payout becomes UNKNOWN and a Transaction Status query is scheduled."),
    "/api/momo/callback/b2c/status": callbackOperation("Transaction Status result (and its time-out)", "Settles an UNKNOWN or PENDING payout."),
    "/api/momo/callback/reversal/result": callbackOperation("Reversal result", "Body: `{ Result: { ResultCode (0 or e.g. \"R000002\"), ResultDesc, OriginatorConversationID, ConversationID, TransactionID, ResultParameters? } }`. Settles the payment's reversal."),
    "/api/momo/callback/reversal/timeout": callbackOperation("Reversal queue time-out", "The reversal becomes UNKNOWN and a Transaction Status query is scheduled."),
    "/api/momo/callback/reversal/status": callbackOperation("A reversal's Transaction Status result (and its time-out)", "Settles an UNKNOWN or PENDING reversal."),
    "/api/momo/callback/c2b/validation": callbackOperation(
      "C2B validation (paybill/till payment from the M-Pesa menu)",
      'Body: `{ TransactionType, TransID, TransTime, TransAmount, BusinessShortCode, BillRefNumber, MSISDN, ... }`. Answers `{ ResultCode: "0", ResultDesc: "Accepted" }` or a rejection `{ ResultCode: "C2B00012" (invalid account) | "C2B00013" (invalid amount) | "C2B00015" (unknown short code), ResultDesc: "Rejected" }`.',
      c2bValidationAnswered,
    ),
    "/api/momo/callback/c2b/confirmation": callbackOperation(
      "C2B confirmation",
      "Same body as the validation. Applied once per TransID: pays the intent its BillRefNumber names, or is kept unmatched. Answers `{ ResultCode: 0, ResultDesc: \"Success\" }`.",
      c2bConfirmationAnswered,
    ),
  };
}
