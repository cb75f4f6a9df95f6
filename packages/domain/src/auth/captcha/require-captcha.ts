/**
 * The CAPTCHA of a flow (docs/sign-in.md#captcha): where the shop's `settings.captcha[flow]` is
 * "always", the request carries a widget token in `X-Captcha-Token`, which the provider checks once.
 * Missing or refused: 403 CAPTCHA_REQUIRED. A provider that does not answer: 503 CAPTCHA_UNAVAILABLE —
 * fail-closed, since a bot would otherwise only need the verify API to be slow. Called by the tenant
 * builder of trpc.ts for an operation that names its flow (`meta.captcha`), before the operation runs.
 */
import { DomainError } from "../../shared/errors.js";
import type { RequestCtx } from "../../shared/request-context.js";
import type { Tenant } from "../../shared/tenant.js";
import type { CaptchaFlow } from "../../shared/tenant-settings.js";
import type { CaptchaPorts } from "./ports.js";

/** Turnstile's and hCaptcha's tokens are at most 2,048 characters; anything longer is no token of theirs. */
const longestToken = 2048;

export function captchaNeeded(tenant: Tenant, flow: CaptchaFlow, providerEnabled: boolean): boolean {
  return providerEnabled && tenant.settings.captcha?.[flow] === "always";
}

export async function requireCaptcha(ctx: RequestCtx<CaptchaPorts> & { tenant: Tenant }, flow: CaptchaFlow): Promise<void> {
  const { deps, request } = ctx;
  if (!captchaNeeded(ctx.tenant, flow, deps.captcha.enabled)) return;
  const token = request.captchaToken?.trim();
  if (!token) {
    deps.events.captchaCheck({ flow, outcome: "missing" });
    throw new DomainError("CAPTCHA_REQUIRED", "captcha.token_missing");
  }
  const verdict = token.length > longestToken ? "refused" : await deps.captcha.verify(token, request.ip);
  deps.events.captchaCheck({ flow, outcome: verdict });
  if (verdict === "unavailable") throw new DomainError("CAPTCHA_UNAVAILABLE", undefined, { retryAfter: 5 });
  if (verdict === "refused") throw new DomainError("CAPTCHA_REQUIRED", "captcha.token_refused");
}
