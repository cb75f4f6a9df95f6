/**
 * Africa's Talking's delivery reports (docs/sms.md#delivery-reports) as a plain Fastify route: the body
 * is Africa's Talking's form, not ours, so it bypasses the tRPC/OpenAPI mounts and is read as raw text.
 *
 *   POST /api/sms/callback/delivery?token=<SMS_CALLBACK_SECRET>
 */
import { receiveDeliveryReport, type Deps } from "@mteja/domain";
import type { FastifyPluginAsync } from "fastify";
import { createLogThrottle } from "./log-throttle.js";

export const smsDeliveryReportPath = "/api/sms/callback/delivery";

export const smsCallbackPlugin: FastifyPluginAsync<{ deps: Deps }> = async (app, { deps }) => {
  const rejectedLog = createLogThrottle(60_000, () => deps.clock.now());
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "string" }, (_request, body, done) => done(null, body));
  // warn: Fastify's per-request info logs would write the URL, and with it the secret token.
  app.post(smsDeliveryReportPath, { logLevel: "warn" }, async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const token = typeof query.token === "string" ? query.token : undefined;
    const rawBody = typeof request.body === "string" ? request.body : "";
    const answer = await receiveDeliveryReport(deps, { token, rawBody });
    if (answer.rejected && rejectedLog.take().log) {
      deps.logger.warn({ sourceIp: request.ip, reason: answer.rejected }, "SMS delivery report rejected (missing or wrong token); further ones within a minute are not logged");
    }
    return reply.code(answer.status).header("cache-control", "no-store").send(answer.body);
  });
};
