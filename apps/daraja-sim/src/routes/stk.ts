import type { FastifyInstance } from "fastify";
import type { DarajaSimulation } from "@mteja/simulated-daraja";
import { darajaRoute } from "../http.js";

/** STK push and its query; what they do is the simulation's (@mteja/simulated-daraja's stk.ts). */
export function registerStkRoutes(app: FastifyInstance, simulation: DarajaSimulation): void {
  app.post(
    "/mpesa/stkpush/v1/processrequest",
    darajaRoute(simulation, "BusinessShortCode", (body) => simulation.stkPush(body)),
  );
  app.post(
    "/mpesa/stkpushquery/v1/query",
    darajaRoute(simulation, "BusinessShortCode", (body) => simulation.stkQuery(body)),
  );
}
