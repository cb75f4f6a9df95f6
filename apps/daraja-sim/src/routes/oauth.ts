import type { FastifyInstance } from "fastify";
import { sendDarajaError } from "../http.js";
import type { ResolvedSimulatorOptions } from "../options.js";
import type { SimulatorState } from "../state.js";
import { newAccessToken } from "../wire.js";

export function registerOAuthRoute(app: FastifyInstance, options: ResolvedSimulatorOptions, state: SimulatorState): void {
  const expected = Buffer.from(`${options.consumerKey}:${options.consumerSecret}`, "utf8").toString("base64");

  app.get("/oauth/v1/generate", async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    if (query["grant_type"] !== "client_credentials") {
      return sendDarajaError(reply, 400, "400.008.02", "Invalid grant type passed");
    }
    const match = /^Basic\s+(\S+)$/i.exec(String(request.headers.authorization ?? ""));
    if (!match) return sendDarajaError(reply, 400, "400.008.01", "Invalid authentication type passed");
    // Daraja answers a wrong key/secret with a bare 400 and no message (docs/daraja-wire-format.md#oauth).
    if (match[1] !== expected) return reply.code(400).send("");

    const token = newAccessToken();
    const now = options.now().getTime();
    if (options.strictTokens) state.tokens.clear();
    for (const [issued, expiresAt] of state.tokens) if (expiresAt <= now) state.tokens.delete(issued);
    state.tokens.set(token, now + options.tokenLifetimeSeconds * 1000);
    const expiresIn = options.expiresInFormat === "number" ? options.tokenLifetimeSeconds : String(options.tokenLifetimeSeconds);
    return { access_token: token, expires_in: expiresIn };
  });
}
