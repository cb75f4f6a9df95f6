/**
 * C2B (docs/daraja-simulator.md#c2b): `POST /sim/c2b/pay`, the customer paying the paybill (or till)
 * from the M-Pesa menu; what it does is the simulation's (@mteja/simulated-daraja's c2b.ts). The
 * register URL is one of the Daraja routes (routes/daraja.ts).
 */
import type { FastifyInstance } from "fastify";
import { normalisePhone, type DarajaSimulation } from "@mteja/simulated-daraja";
import { z } from "zod";

const payRequestSchema = z.object({
  short_code: z
    .string()
    .regex(/^\d{5,7}$/)
    .optional(),
  account: z.string().max(20).default(""),
  amount: z.number().int().positive(),
  phone: z
    .string()
    .transform(
      (phone, context) =>
        normalisePhone(phone) ?? (context.addIssue({ code: "custom", message: "not a Kenyan mobile number" }), z.NEVER),
    )
    .default("254708374149"),
  /** How MSISDN is sent: masked (v2, default), hashed (SHA-256 hex of the 12 digits) or plain (older payloads). */
  msisdn: z.enum(["masked", "hashed", "plain"]).default("masked"),
  /** false: external validation is not enabled for this short code (Daraja's default): confirmation only. */
  validation: z.boolean().default(true),
  command: z.enum(["CustomerPayBillOnline", "CustomerBuyGoodsOnline"]).default("CustomerPayBillOnline"),
  /** Fault mode: the confirmation is delivered twice. */
  repeat_confirmation: z.boolean().default(false),
  /** Fault mode: the confirmation never reaches the shop (visible to Pull only); also the amount 41. */
  lose_confirmation: z.boolean().default(false),
});

export function registerC2bPayRoute(app: FastifyInstance, simulation: DarajaSimulation): void {
  app.post("/sim/c2b/pay", async (request, reply) => {
    let json: unknown = {};
    try {
      json =
        typeof request.body === "string" && request.body.trim() !== "" ? (JSON.parse(request.body) as unknown) : {};
    } catch {
      return reply.code(400).send({ error: "body is not JSON" });
    }
    const parsed = payRequestSchema.safeParse(json);
    if (!parsed.success) return reply.code(400).send({ error: z.prettifyError(parsed.error) });
    const { short_code: shortCode, repeat_confirmation: repeatConfirmation, lose_confirmation: loseConfirmation, ...pay } = parsed.data;
    return simulation.c2bPay({ ...pay, shortCode, repeatConfirmation, loseConfirmation });
  });
}
