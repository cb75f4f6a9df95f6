/**
 * The two-factor branch of login. Issue "Two-factor sign-in…" replaces this seam with the otp
 * module; until then an account cannot have otp_enabled set, so this is never reached.
 */
import type { Context } from "../context.js";
import { DomainError } from "../errors.js";

export async function issueOtpLoginToken(_ctx: Context, _user: { id: string; tenantId: string }): Promise<string> {
  throw new DomainError("INTERNAL_ERROR", "Two-factor sign-in is not available yet.");
}
