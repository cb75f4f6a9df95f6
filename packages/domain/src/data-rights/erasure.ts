/**
 * DELETE /api/v1/auth/me (docs/data-rights.md#erasure): the customer erases their account. First, in
 * batches, their phone is masked in the evidence kept beyond their own rows (erased-evidence.ts: stored
 * callbacks, webhook event bodies, sent texts). Then in one transaction: personal fields replaced,
 * addresses, secrets, sessions, tokens and security history deleted, unsent mail and texts to them
 * cancelled, payments kept for the law with the phone masked, what was written meanwhile masked too;
 * then the event and a last notice to the old address. The row itself stays (payments point at it),
 * under an address that cannot receive mail, so the email is free to register again.
 */
import type { TenantTx } from "@mteja/db";
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
  const user = await ctx.db.user.findFirst({ where: { id: auth.sub, deletedAt: null } });
  if (!user) throw new DomainError("INVALID_TOKEN");
  await confirmAccountOwner(ctx, user, proof);

  // Read before anything changes (the payments' phones are masked below); a failure leaves the account as it was.
  const evidence = await erasedEvidenceOf(ctx, user);
  const batchesStartedAt = await maskErasedEvidence(ctx, evidence);

  await ctx.db.$transaction(async (tx) => {
    const now = deps.clock.now();
    if (user.email !== null) await tx.mailOutbox.deleteMany({ where: { toAddress: user.email, sentAt: null } });
    // Texts not yet sent to the account's phones, and the codes of the account and of its phones
    // (a code names the account only when one had its phone then).
    const unsent = textsToAccountPhones(evidence, null);
    if (unsent !== undefined) await tx.smsOutbox.deleteMany({ where: unsent });
    await tx.phoneCode.deleteMany({ where: { OR: [{ userId: user.id }, { userId: null, phone: { in: evidence.accountPhones } }] } });
    // The last mail, written while the account still holds its language.
    await enqueueDataRightsNotice(ctx, tx, user, "accountDeleted");
    const claimed = await tx.user.updateMany({
      where: { id: user.id, deletedAt: null },
      data: {
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
      },
    });
    // Two erasures at once: the second finds the account gone, as its token already is.
    if (claimed.count !== 1) throw new DomainError("INVALID_TOKEN");
    await tx.address.deleteMany({ where: { userId: user.id } });
    await tx.session.deleteMany({ where: { userId: user.id } });
    await tx.oneTimeToken.deleteMany({ where: { userId: user.id } });
    await tx.recoveryCode.deleteMany({ where: { userId: user.id } });
    await tx.securityEvent.deleteMany({ where: { userId: user.id } });
    await maskPaymentPhones(tx, user.id);
    await maskEvidenceWrittenMeanwhile(tx, evidence, batchesStartedAt);
    await recordSecurityEvent(ctx, tx, user.tenantId, { userId: user.id, type: "account.deleted" });
  });
  deps.nudgeMail();
  clearRefreshCookie(ctx);
}

async function maskPaymentPhones(tx: TenantTx, userId: string): Promise<void> {
  const payments = await tx.payment.findMany({ where: { userId }, select: { id: true, phone: true, paidPhone: true } });
  for (const payment of payments) {
    await tx.payment.update({
      where: { id: payment.id },
      data: { phone: maskPhone(payment.phone), paidPhone: payment.paidPhone === null ? null : maskPhone(payment.paidPhone) },
    });
  }
}
