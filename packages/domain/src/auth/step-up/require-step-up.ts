/**
 * Step-up (docs/step-up.md): the one check of a sensitive operation's declaration (`meta.stepUp`),
 * run by the credential middleware of trpc.ts on the session row it has just read. A fresh session
 * passes at once, with no query of its own; only a session past its `fresh_until` reads the account,
 * to tell whether this call is sensitive and whether its body carries a complete proof.
 */
import { users, type TenantDb } from "@mteja/db";
import type { LiveSessionRow } from "../sessions/sessions.js";
import type { Context } from "../ports.js";
import { DomainError } from "../../shared/errors.js";
import type { PasswordField, StepUp, StepUpAccount } from "../../shared/operation-meta.js";
import type { AccessClaims } from "../tokens/access-tokens.js";
import { isGuestRole } from "../guest/roles.js";

/** What the check needs of a signed-in call. */
export type StepUpCtx = Context & { auth: AccessClaims; db: TenantDb };

export function isFresh(session: Pick<LiveSessionRow, "fresh_until">, now: Date): boolean {
  return session.fresh_until !== null && session.fresh_until > now;
}

export const stepUpRequired = () => new DomainError("STEP_UP_REQUIRED");

/** Throws 403 STEP_UP_REQUIRED unless the session is fresh or the declaration lets this call through. */
export async function requireStepUp(ctx: StepUpCtx, rule: StepUp, session: LiveSessionRow, rawInput: () => Promise<unknown>): Promise<void> {
  if (isFresh(session, ctx.deps.clock.now())) return;
  if (rule === "always") throw stepUpRequired();
  const account = await stepUpAccountOf(ctx);
  // A guest has no factor to prove: its upgrade (a first email or phone) needs no fresh session.
  if (account.isGuest) return;
  const input = await rawInput();
  if ("when" in rule) {
    if (await rule.when({ account, input, db: ctx.db })) throw stepUpRequired();
    return;
  }
  if (!carriesCompleteProof(input, rule.orBodyProof, account)) throw stepUpRequired();
}

/**
 * The proof a body must carry to stand in for a fresh session: what the operation verifies against the
 * account's factors — its password (or, without one, a code texted to its verified phone) — and the
 * two-factor code while two-factor is on. Present is enough here: the operation checks them all, and a
 * wrong one answers 401 (counted as a failed sign-in) before anything changes.
 */
export function carriesCompleteProof(input: unknown, passwordField: PasswordField, account: StepUpAccount): boolean {
  const given = (field: string) => {
    const value = typeof input === "object" && input !== null ? (input as Record<string, unknown>)[field] : undefined;
    return typeof value === "string" && value.trim() !== "";
  };
  const firstFactor = account.hasPassword ? given(passwordField) : account.phoneVerified && given("sms_code");
  return firstFactor && (!account.otpEnabled || given("code"));
}

async function stepUpAccountOf(ctx: StepUpCtx): Promise<StepUpAccount> {
  const user = await users.findById(ctx.db, ctx.auth.sub);
  if (!user) throw new DomainError("INVALID_TOKEN");
  const { id, tenantId, email, phone, phoneVerified, otpEnabled, passwordHash } = user;
  return { id, tenantId, email, phone, phoneVerified, otpEnabled, hasPassword: passwordHash !== null, isGuest: isGuestRole(user.role) };
}
