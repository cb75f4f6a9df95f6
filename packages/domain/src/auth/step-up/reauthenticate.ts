/**
 * POST /api/v1/auth/reauthenticate and /reauthenticate/sms (docs/step-up.md#reauthenticate): the
 * signed-in customer proves again that it is them, and their session is fresh for
 * STEP_UP_WINDOW_SECONDS more. Only this session: the others stay as they are.
 */
import { sessions, users } from "@mteja/db";
import type { z } from "zod";
import { DomainError } from "../../shared/errors.js";
import { recordSecurityEvent } from "../../security-events/record.js";
import type { AuthedCtx } from "../ports.js";
import { startMePhone } from "../phone/service.js";
import { freshUntilFrom } from "../sessions/sessions.js";
import { confirmProof, proofOf } from "./proofs.js";
import type { reauthenticateInput } from "./schemas.js";

const invalidToken = () => new DomainError("INVALID_TOKEN");

export async function reauthenticate(ctx: AuthedCtx, input: z.infer<typeof reauthenticateInput>): Promise<{ fresh_until: string }> {
  const { deps, auth } = ctx;
  const proof = proofOf(input);
  const user = await users.findById(ctx.db, auth.sub);
  if (!user) throw invalidToken();
  const method = await confirmProof(ctx, user, proof);
  const freshUntil = freshUntilFrom(deps, deps.clock.now());
  await ctx.deps.db.transaction(ctx.db, async (tx) => {
    // Revoked while the proof was checked (a password change elsewhere, a revocation from the devices page).
    if (!(await sessions.renewFreshness(tx, { id: auth.sid, userId: user.id }, freshUntil))) throw invalidToken();
    await recordSecurityEvent(ctx, tx, user.tenantId, { userId: user.id, type: "reauthenticated", details: { method, session_id: auth.sid } });
  });
  return { fresh_until: freshUntil.toISOString() };
}

/** Texts a code to the account's current verified phone, for `{ sms_code }`; none: 409 NO_VERIFIED_PHONE. */
export async function sendReauthenticationCode(ctx: AuthedCtx): Promise<void> {
  const user = await users.findPhone(ctx.db, ctx.auth.sub);
  if (!user) throw invalidToken();
  if (!user.phoneVerified || user.phone === null) throw new DomainError("NO_VERIFIED_PHONE");
  // The same code as me/phone/start to the verified phone (one live code per account), under its limits.
  await startMePhone(ctx, {});
}
