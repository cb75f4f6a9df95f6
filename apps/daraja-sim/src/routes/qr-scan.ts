/**
 * `POST /sim/qr/scan` (docs/daraja-simulator.md#dynamic-qr): a customer scanning one of the simulator's
 * QR codes and paying; what it does is the simulation's (@mteja/simulated-daraja's dynamic-qr.ts).
 */
import type { FastifyInstance } from "fastify";
import type { DarajaSimulation } from "@mteja/simulated-daraja";
import { z } from "zod";
import { controlBody, kenyanPhone } from "../control-body.js";

const scanRequestSchema = z.object({
  qr_code: z.string().min(1),
  phone: kenyanPhone
    .default("254708374149"),
  msisdn: z.enum(["masked", "hashed", "plain"]).default("masked"),
  validation: z.boolean().default(true),
  /** Fault mode: the confirmation never reaches the shop (visible to Pull only). */
  lose_confirmation: z.boolean().default(false),
});

export function registerQrScanRoute(app: FastifyInstance, simulation: DarajaSimulation): void {
  app.post("/sim/qr/scan", async (request, reply) => {
    const scan = controlBody(request, reply, scanRequestSchema);
    if (!scan) return reply;
    const { qr_code: qrCode, lose_confirmation: loseConfirmation, ...payer } = scan;
    const scanned = await simulation.qrScan({ qrCode, loseConfirmation, ...payer });
    if (!scanned.ok) return reply.code(400).send({ error: scanned.error });
    return { qr: scanned.qr, ...scanned.payment };
  });
}
