import type { FastifyInstance } from "fastify";
import { OAUTH_PATH, type DarajaSimulation } from "@mteja/simulated-daraja";
import { sendAnswer } from "../http.js";

export function registerOAuthRoute(app: FastifyInstance, simulation: DarajaSimulation): void {
  app.get(OAUTH_PATH, async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    return sendAnswer(reply, simulation.tokens.issue(String(request.headers.authorization ?? ""), query["grant_type"]));
  });
}
