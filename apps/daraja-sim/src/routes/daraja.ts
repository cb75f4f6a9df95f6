import type { FastifyInstance } from "fastify";
import type { DarajaSimulation } from "@mteja/simulated-daraja";
import { darajaRoute } from "../http.js";

/**
 * Every Daraja POST endpoint of the simulation (@mteja/simulated-daraja's apis.ts), on Daraja's path:
 * the token, what the gateway refuses before the body, the body, then the simulation's answer.
 */
export function registerDarajaRoutes(app: FastifyInstance, simulation: DarajaSimulation): void {
  for (const endpoint of simulation.endpoints) {
    app.post(endpoint.path, darajaRoute(simulation, endpoint.firstField, endpoint.answer, endpoint.refusal));
  }
}
