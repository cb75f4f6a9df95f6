/**
 * Daraja's callbacks (docs/mpesa.md#callbacks) as plain Fastify routes: their bodies are Daraja's, not ours, so
 * they bypass the tRPC/OpenAPI mounts. Every body is read as raw text (whatever its content type, even
 * invalid JSON) so it can be stored verbatim before anything else; the domain does the rest.
 *
 * One route per callback of the domain's flow registry (payments/flows.ts), at /api/momo/callback/<its path>,
 * each documented from its flow's declaration.
 */
import {
  ACCEPTED_ANSWER,
  CALLBACK_ROUTE_PREFIX,
  callbackRoutes,
  receiveCallback,
  type CallbackDoc,
  type Deps,
} from "@mteja/domain";
import type { FastifyPluginAsync } from "fastify";
import type { Counter } from "prom-client";
import { z } from "zod";
import { createLogThrottle, type LogThrottle } from "./log-throttle.js";

/** Rejected callbacks (no or wrong token) are logged at most once a minute; the metric counts each one. */
const REJECTED_LOG_INTERVAL_MS = 60_000;

export interface DarajaCallbackOptions {
  deps: Deps;
  /** mteja_momo_callbacks_rejected_total (http/metrics.ts). */
  rejectedCallbacks: Counter<"kind" | "reason" | "stored">;
}

export const darajaCallbackPlugin: FastifyPluginAsync<DarajaCallbackOptions> = async (app, { deps, rejectedCallbacks }) => {
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

  for (const route of callbackRoutes) {
    const { kind, path } = route;
    // warn: Fastify's per-request info logs would write the URL, and with it the secret token.
    app.post(`${CALLBACK_ROUTE_PREFIX}/${path}`, { logLevel: "warn" }, async (request, reply) => {
      const query = request.query as Record<string, unknown>;
      const token = typeof query.token === "string" ? query.token : undefined;
      const rawBody = typeof request.body === "string" ? request.body : "";
      const reference = typeof query.ref === "string" ? query.ref : undefined;
      const tenant = typeof query.tenant === "string" ? query.tenant : undefined;
      const paysIntent = query.intent === "1";
      const inbound = { kind, route, rawBody, sourceIp: request.ip, token, tenant, reference, paysIntent };
      const answer = await receiveCallback(deps, inbound);
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

/** The name of the callbacks' security scheme: the `token` query parameter of every callback URL. */
export const CALLBACK_TOKEN_SCHEME = "callbackToken";

const callbackTokenScheme = {
  type: "apiKey" as const,
  in: "query" as const,
  name: "token",
  description:
    "The shop's callback token, derived from MOMO_CALLBACK_SECRET (the service puts it in the callback URLs it " +
    "gives Daraja); MOMO_CALLBACK_SECRET itself only for requests sent before shops had their own.",
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
  content: {
    "application/json": {
      schema: z.object({
        ResultCode: z.literal(ACCEPTED_ANSWER.ResultCode),
        ResultDesc: z.literal(ACCEPTED_ANSWER.ResultDesc),
      }),
    },
  },
};

/** `b2c_result` → `darajaCallback-b2cResult`. */
const operationIdOf = (kind: string) =>
  `darajaCallback-${kind.replace(/_([a-z0-9])/g, (_match, letter: string) => letter.toUpperCase())}`;

function callbackOperation(kind: string, { summary, body, answered }: CallbackDoc) {
  return {
    post: {
      operationId: operationIdOf(kind),
      tags: ["momo callbacks"],
      summary,
      description: `Called by Daraja, not by clients. ${body} Stored verbatim first, then applied exactly once.`,
      security: [{ [CALLBACK_TOKEN_SCHEME]: [] }],
      parameters: [tenantParameter],
      requestBody: { required: true, content: { "application/json": { schema: z.object({}).passthrough() } } },
      responses: {
        200: answered
          ? { description: answered.description, content: { "application/json": { schema: answered.schema } } }
          : accepted,
        // Beside the statuses every operation answers (apps/api/src/http/rest/document.ts adds those).
        403: {
          description:
            "FORBIDDEN: no token, a wrong one, or a shop's token for another shop's payment, payout, reversal or " +
            "short code (counted; at most 60 a minute stored for audit; logged at most once a minute)",
        },
      },
    },
  };
}

/** The callback endpoints in the OpenAPI document, in the registry's order, and the scheme of their token. */
export function darajaCallbackOpenApi() {
  const paths = Object.fromEntries(
    callbackRoutes.map(({ kind, path, openapi }) => [
      `${CALLBACK_ROUTE_PREFIX}/${path}`,
      callbackOperation(kind, openapi),
    ]),
  );
  return { paths, securitySchemes: { [CALLBACK_TOKEN_SCHEME]: callbackTokenScheme } };
}
