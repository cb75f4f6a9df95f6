import type { FastifyInstance } from "fastify";
import type { DarajaSimulation } from "@mteja/simulated-daraja";
import { darajaRoute } from "../http.js";

/** POST /mpesa/reversal/v1/request (docs/daraja-simulator.md#reversals); what it does is the simulation's. */
export function registerReversalRoute(app: FastifyInstance, simulation: DarajaSimulation): void {
  app.post(
    "/mpesa/reversal/v1/request",
    darajaRoute(simulation, "Initiator", (body) => simulation.reversal(body)),
  );
}
