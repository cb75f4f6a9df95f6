import type { FastifyInstance } from "fastify";
import type { DarajaSimulation } from "@mteja/simulated-daraja";
import { darajaRoute } from "../http.js";

/** POST /mpesa/transactionstatus/v1/query; what it does is the simulation's. */
export function registerTransactionStatusRoute(app: FastifyInstance, simulation: DarajaSimulation): void {
  app.post(
    "/mpesa/transactionstatus/v1/query",
    darajaRoute(simulation, "Initiator", (body) => simulation.transactionStatus(body)),
  );
}
