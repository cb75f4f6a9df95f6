/**
 * C2B (docs/daraja-simulator.md#c2b): `POST /sim/c2b/pay`, the customer paying the paybill (or till)
 * from the M-Pesa menu; what it does is the simulation's (@mteja/simulated-daraja's c2b.ts). The
 * register URL is one of the Daraja routes (routes/daraja.ts).
 */
import type { FastifyInstance } from "fastify";
import type { DarajaSimulation } from "@mteja/simulated-daraja";
import { z } from "zod";
import { controlBody, kenyanPhone } from "../control-body.js";

const payRequestSchema = z.object({
  short_code: z
    .string()
    .regex(/^\d{5,7}$/)
    .optional(),
  account: z.string().max(20).default(""),
  amount: z.number().int().positive(),
  phone: kenyanPhone
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
    const paid = controlBody(request, reply, payRequestSchema);
    if (!paid) return reply;
    const { short_code: shortCode, repeat_confirmation: repeatConfirmation, lose_confirmation, ...pay } = paid;
    return simulation.c2bPay({ ...pay, shortCode, repeatConfirmation, loseConfirmation: lose_confirmation });
  });
}
