import type { FastifyInstance } from "fastify";
import type { DarajaSimulation } from "@mteja/simulated-daraja";
import { darajaRoute } from "../http.js";

/** B2C payment requests; what they do is the simulation's (@mteja/simulated-daraja's b2c.ts). */
export function registerB2cRoutes(app: FastifyInstance, simulation: DarajaSimulation): void {
  // v1 predates OriginatorConversationID in the request; the simulator generates one when absent.
  app.post(
    "/mpesa/b2c/v1/paymentrequest",
    darajaRoute(simulation, "InitiatorName", (body) => simulation.b2cPayment(body, "v1")),
  );
  app.post(
    "/mpesa/b2c/v3/paymentrequest",
    darajaRoute(simulation, "InitiatorName", (body) => simulation.b2cPayment(body, "v3")),
  );
}
