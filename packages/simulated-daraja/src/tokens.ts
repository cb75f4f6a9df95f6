/**
 * Daraja's OAuth (docs/daraja-wire-format.md#oauth): tokens for the consumer key and secret, each
 * valid for tokenLifetimeSeconds by the simulation's clock; in strict mode, issuing one invalidates
 * the others, as Daraja does. Kept in this process's memory: a token is only ever shown to the
 * client that asked for it, through this same simulation.
 */
import { accepted, darajaError, type DarajaAnswer } from "./answers.js";
import type { ResolvedSimulationOptions } from "./options.js";
import { newAccessToken } from "./wire.js";

export interface Tokens {
  /** GET /oauth/v1/generate: `authorization` is the Basic header, `grantType` the query's grant_type. */
  issue(authorization: string | undefined, grantType: unknown): DarajaAnswer;
  /** True when the Bearer header names a token issued here and not expired (nor, in strict mode, replaced). */
  accepts(authorization: string | undefined): boolean;
}

export function createTokens(options: ResolvedSimulationOptions): Tokens {
  const expected = Buffer.from(`${options.consumerKey}:${options.consumerSecret}`, "utf8").toString("base64");
  /** token → expiry (ms since epoch). */
  const tokens = new Map<string, number>();

  return {
    issue(authorization, grantType) {
      if (grantType !== "client_credentials") return darajaError(400, "400.008.02", "Invalid grant type passed");
      const match = /^Basic\s+(\S+)$/i.exec(authorization ?? "");
      if (!match) return darajaError(400, "400.008.01", "Invalid authentication type passed");
      // Daraja answers a wrong key/secret with a bare 400 and no message (docs/daraja-wire-format.md#oauth).
      if (match[1] !== expected) return { status: 400, body: "" };

      const token = newAccessToken();
      const now = options.now().getTime();
      if (options.strictTokens) tokens.clear();
      for (const [issued, expiresAt] of tokens) if (expiresAt <= now) tokens.delete(issued);
      tokens.set(token, now + options.tokenLifetimeSeconds * 1000);
      const expiresIn =
        options.expiresInFormat === "number" ? options.tokenLifetimeSeconds : String(options.tokenLifetimeSeconds);
      return accepted({ access_token: token, expires_in: expiresIn });
    },

    accepts(authorization) {
      const match = /^Bearer\s+(\S+)$/i.exec(authorization ?? "");
      const expiresAt = match?.[1] ? tokens.get(match[1]) : undefined;
      return expiresAt !== undefined && expiresAt > options.now().getTime();
    },
  };
}
