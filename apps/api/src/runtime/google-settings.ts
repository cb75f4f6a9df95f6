/**
 * Sign in with Google's process settings (docs/configuration.md "Sign in with Google"), spread into the
 * one settings schema of ../settings.ts. Each shop's OAuth client is a tenant setting
 * (`settings.oidc.google`); the issuer is the platform's.
 */
import { z } from "zod";

export const googleSettingsShape = {
  /** Google's issuer, discovered at first use; tests and the dev start point it at a local OpenID provider. */
  /** Unset: https://accounts.google.com, or on the dev start the in-process simulator. */
  OIDC_GOOGLE_ISSUER: z.url({ protocol: /^https?$/, error: "OIDC_GOOGLE_ISSUER must be an http(s) URL" }).optional(),
  /** The dev start's Google simulator; 0: any free port. */
  GOOGLE_SIM_PORT: z.coerce.number({ error: "GOOGLE_SIM_PORT must be a number" }).int().min(0).max(65535).default(0),
};

const loopbackHosts = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** Plain http reaches only a provider on this machine (the simulator): anything else must be https. */
export function checkGoogleSettings(s: { OIDC_GOOGLE_ISSUER?: string | undefined }, ctx: z.RefinementCtx): void {
  if (!s.OIDC_GOOGLE_ISSUER) return;
  const issuer = new URL(s.OIDC_GOOGLE_ISSUER);
  if (issuer.protocol === "http:" && !loopbackHosts.has(issuer.hostname)) {
    const message = "OIDC_GOOGLE_ISSUER must be https unless it is on this machine (a local stand-in)";
    ctx.addIssue({ code: "custom", path: ["OIDC_GOOGLE_ISSUER"], message });
  }
}

export const googleIssuer = "https://accounts.google.com";
