import type { FastifyInstance } from "fastify";
import { SIM_APIS, SIM_OUTCOMES, type DarajaSimulation } from "@mteja/simulated-daraja";
import { z } from "zod";
import { kenyanPhone } from "../control-body.js";
import { resetServerState } from "../state.js";
import type { ServerState } from "../state.js";

const nextOutcomeSchema = z.object({
  outcome: z.enum(SIM_OUTCOMES),
  phone: kenyanPhone
    .optional(),
  api: z.enum(SIM_APIS).optional(),
});

function jsonOf(body: unknown): unknown {
  if (typeof body !== "string" || body.trim() === "") return {};
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
}

/** Test/dev controls. Not part of Daraja: everything lives under /sim. */
export function registerControlRoutes(app: FastifyInstance, simulation: DarajaSimulation, state: ServerState): void {
  app.post("/sim/next-outcome", async (request, reply) => {
    const parsed = nextOutcomeSchema.safeParse(jsonOf(request.body));
    if (!parsed.success) return reply.code(400).send({ error: z.prettifyError(parsed.error) });
    const queued = { outcome: parsed.data.outcome, phone: parsed.data.phone ?? null, api: parsed.data.api ?? null };
    state.queuedOutcomes.push(queued);
    return { queued, pending: state.queuedOutcomes.length };
  });

  app.get("/sim/requests", async () => ({
    requests: state.requests,
    callbacks: state.callbacks,
    queuedOutcomes: state.queuedOutcomes,
  }));

  // Forgets payments, payouts, reversals, queued outcomes and logs. Issued tokens stay valid.
  app.post("/sim/reset", async () => {
    await simulation.reset();
    resetServerState(state);
    return { reset: true };
  });
}
