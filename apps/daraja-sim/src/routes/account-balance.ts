import type { FastifyInstance } from "fastify";
import type { DarajaSimulation } from "@mteja/simulated-daraja";
import { darajaRoute } from "../http.js";

export const ACCOUNT_BALANCE_PATH = "/mpesa/accountbalance/v1/query";

/** POST /mpesa/accountbalance/v1/query (docs/daraja-simulator.md#account-balance); what it does is the simulation's. */
export function registerAccountBalanceRoute(app: FastifyInstance, simulation: DarajaSimulation): void {
  app.post(
    ACCOUNT_BALANCE_PATH,
    darajaRoute(simulation, "Initiator", (body) => simulation.accountBalance(body)),
  );
}
