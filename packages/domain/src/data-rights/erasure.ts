/**
 * DELETE /api/v1/auth/me (docs/data-rights.md#erasure): the customer erases their account. First, in
 * batches, their phone is masked in the evidence kept beyond their own rows (erased-evidence.ts: stored
 * callbacks, webhook event bodies, sent texts). Then in one transaction: personal fields replaced,
 * addresses, secrets, sessions, tokens and security history deleted, unsent mail and texts to them
 * cancelled, payments kept for the law with the phone masked, what was written meanwhile masked too;
 * then the event and a last notice to the old address. The row itself stays (payments point at it),
 * under an address that cannot receive mail, so the email is free to register again.
 */
import { addresses, dataRights, outboxes } from "@mteja/db";
import { clearRefreshCookie } from "../auth/sessions/refresh-cookie.js";
import { DomainError } from "../shared/errors.js";
import { recordSecurityEvent } from "../security-events/record.js";
import type { AuthedCtx } from "./ports.js";
import { confirmAccountOwner, type OwnerProof } from "./confirmation.js";
import { erasedEvidenceOf, maskErasedEvidence, maskEvidenceWrittenMeanwhile, textsToAccountPhones } from "./erased-evidence.js";
import { maskPhone } from "./mask-phone.js";
import { enqueueDataRightsNotice } from "./notices.js";

/** The address an erased account keeps: unique, and in the `.invalid` domain that never receives mail (RFC 2606). */
export function erasedEmail(userId: string): string {
  return `erased-${userId}@erased.invalid`;
}

export async function eraseMyAccount(ctx: AuthedCtx, proof: OwnerProof): Promise<void> {
  const { deps, auth } = ctx;
  const user = await dataRights.liveAccount(ctx.db, auth.sub);
  if (!user) throw new DomainError("INVALID_TOKEN");
  await confirmAccountOwner(ctx, user, proof);

  // Read before anything changes (the payments' phones are masked below); a failure leaves the account as it was.
  const evidence = await erasedEvidenceOf(ctx, user);
  const batchesStartedAt = await maskErasedEvidence(ctx, evidence);

  await ctx.deps.db.transaction(ctx.db, async (tx) => {
    const now = deps.clock.now();
    if (user.email !== null) await outboxes.cancelUnsentMailTo(tx, user.email);
    // Texts not yet sent to the account's phones, and the codes of the account and of its phones
    // (a code names the account only when one had its phone then).
    const texts = textsToAccountPhones(evidence);
    if (texts !== undefined) await outboxes.cancelUnsentTexts(tx, texts);
    await dataRights.deletePhoneCodes(tx, { userId: user.id, unownedPhones: evidence.accountPhones });
    // The last mail, written while the account still holds its language.
    await enqueueDataRightsNotice(ctx, tx, user, "accountDeleted");
    const claimed = await dataRights.eraseAccount(tx, user.id, {
      deletedAt: now,
      email: erasedEmail(user.id),
      name: null,
      phone: null,
      phoneVerified: false,
      avatarUrl: null,
      passwordHash: null,
      emailVerified: false,
      role: null,
      preferences: {},
      otpEnabled: false,
      otpSecretEnc: null,
      otpPendingSecretEnc: null,
      otpLastStep: null,
    });
    // Two erasures at once: the second finds the account gone, as its token already is.
    if (!claimed) throw new DomainError("INVALID_TOKEN");
    await addresses.deleteAllOf(tx, user.id);
    await dataRights.deleteRowsOf(tx, user.id, ["sessions", "oneTimeTokens", "recoveryCodes", "securityEvents", "identities"]);
    await dataRights.maskPaymentPhones(tx, user.id, maskPhone);
    await maskEvidenceWrittenMeanwhile(tx, evidence, batchesStartedAt);
    await recordSecurityEvent(ctx, tx, user.tenantId, { userId: user.id, type: "account.deleted" });
  });
  deps.nudgeMail();
  clearRefreshCookie(ctx);
}
