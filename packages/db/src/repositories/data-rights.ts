/**
 * What the customer's data rights (docs/data-rights.md: the export and the erasure) read and write in
 * the tables other repositories own — the user, sessions, tokens, recovery codes, phone codes, security
 * events, payments, refunds, stored callbacks, passkeys, linked identities — named for the job, so the
 * domain holds no query. What counts as erased, and how a phone is masked, is the domain's: it hands
 * both in.
 */
import type {
  PasskeyModel,
  PaymentModel,
  SecurityEventModel,
  SessionModel,
  UserIdentityModel,
  UserModel,
} from "../generated/prisma/models.js";
import { allOf as addressesOf, type AddressRow } from "./addresses.js";
import { prismaOf, type AnyClient } from "./clients.js";

/** The account, unless it is erased. */
export function liveAccount(db: AnyClient, userId: string): Promise<UserModel | null> {
  return prismaOf(db).user.findFirst({ where: { id: userId, deletedAt: null } });
}

// --- The export --------------------------------------------------------------------------------

export interface AccountRows {
  addresses: AddressRow[];
  sessions: SessionModel[];
  payments: PaymentModel[];
  securityEvents: SecurityEventModel[];
  passkeys: PasskeyModel[];
  /** Linked outside accounts (Google's), as much of each as the export shows. */
  identities: Pick<UserIdentityModel, "provider" | "subject" | "email" | "linkedAt">[];
}

/** Everything held on the account besides its own row, each kind newest first. */
export async function exportOf(tx: AnyClient, userId: string): Promise<AccountRows> {
  const client = prismaOf(tx);
  const newestFirst = [{ createdAt: "desc" as const }, { id: "desc" as const }];
  // One after another: queries of one transaction share its connection.
  const addresses = await addressesOf(tx, userId);
  const sessions = await client.session.findMany({ where: { userId }, orderBy: newestFirst });
  const payments = await client.payment.findMany({ where: { userId }, orderBy: newestFirst });
  const securityEvents = await client.securityEvent.findMany({ where: { userId }, orderBy: newestFirst });
  const passkeys = await client.passkey.findMany({ where: { userId }, orderBy: newestFirst });
  const identities = await client.userIdentity.findMany({
    where: { userId },
    select: { provider: true, subject: true, email: true, linkedAt: true },
    orderBy: [{ linkedAt: "desc" }, { id: "desc" }],
  });
  return { addresses, sessions, payments, securityEvents, passkeys, identities };
}

// --- What an erasure finds its evidence by -----------------------------------------------------

export type EvidencePayment = Pick<
  PaymentModel,
  "id" | "userId" | "phone" | "paidPhone" | "createdAt" | "checkoutRequestId" | "mpesaReceipt" | "transId"
>;

/** The account's payments, and the C2B payments of the intents made out to it. */
export function paymentsOfAccount(db: AnyClient, userId: string): Promise<EvidencePayment[]> {
  return prismaOf(db).payment.findMany({
    where: { OR: [{ userId }, { channel: "c2b", intent: { is: { userId } } }] },
    select: {
      id: true,
      userId: true,
      phone: true,
      paidPhone: true,
      createdAt: true,
      checkoutRequestId: true,
      mpesaReceipt: true,
      transId: true,
    },
  });
}

/** Daraja's ids of these payments' refunds (reversals and B2C refunds to the payer). */
export function refundsOf(
  db: AnyClient,
  paymentIds: readonly string[],
): Promise<{ originatorConversationId: string | null; conversationId: string | null; receipt: string | null }[]> {
  if (paymentIds.length === 0) return Promise.resolve([]);
  return prismaOf(db).refund.findMany({
    where: { paymentId: { in: [...paymentIds] } },
    select: { originatorConversationId: true, conversationId: true, receipt: true },
  });
}

/** The phones of the codes written for the account. */
export async function phonesCodedFor(db: AnyClient, userId: string): Promise<string[]> {
  const rows = await prismaOf(db).phoneCode.findMany({
    where: { userId },
    select: { phone: true },
    distinct: ["phone"],
  });
  return rows.map((row) => row.phone);
}

// --- The erasure's writes ----------------------------------------------------------------------

/** The user's columns as an erasure leaves them (the caller decides each value). */
export type ErasedAccount = Partial<Omit<UserModel, "id" | "tenantId" | "createdAt" | "preferences">> & {
  deletedAt: Date;
  preferences?: Record<string, never>;
};

/** The account's columns replaced, unless it is already erased: false then (another erasure came first). */
export async function eraseAccount(tx: AnyClient, userId: string, erased: ErasedAccount): Promise<boolean> {
  const { count } = await prismaOf(tx).user.updateMany({ where: { id: userId, deletedAt: null }, data: erased });
  return count === 1;
}

/** The codes written for the account, and those of these phones written for no account, deleted. */
export async function deletePhoneCodes(
  tx: AnyClient,
  codes: { userId: string; unownedPhones: readonly string[] },
): Promise<void> {
  await prismaOf(tx).phoneCode.deleteMany({
    where: { OR: [{ userId: codes.userId }, { userId: null, phone: { in: [...codes.unownedPhones] } }] },
  });
}

/** The kinds of the account's own rows an erasure may delete whole. */
export type OwnRows = "sessions" | "oneTimeTokens" | "recoveryCodes" | "securityEvents" | "identities" | "passkeys";

/** The account's rows of these kinds deleted (a session's refresh tokens go with it). */
export async function deleteRowsOf(tx: AnyClient, userId: string, kinds: readonly OwnRows[]): Promise<void> {
  const client = prismaOf(tx);
  const deleters: Record<OwnRows, () => Promise<unknown>> = {
    sessions: () => client.session.deleteMany({ where: { userId } }),
    oneTimeTokens: () => client.oneTimeToken.deleteMany({ where: { userId } }),
    recoveryCodes: () => client.recoveryCode.deleteMany({ where: { userId } }),
    securityEvents: () => client.securityEvent.deleteMany({ where: { userId } }),
    identities: () => client.userIdentity.deleteMany({ where: { userId } }),
    passkeys: () => client.passkey.deleteMany({ where: { userId } }),
  };
  for (const kind of kinds) await deleters[kind]();
}

/** The phones of the account's payments (asked and paid from) rewritten by `mask`. */
export async function maskPaymentPhones(tx: AnyClient, userId: string, mask: (phone: string) => string): Promise<void> {
  const client = prismaOf(tx);
  const payments = await client.payment.findMany({
    where: { userId },
    select: { id: true, phone: true, paidPhone: true },
  });
  for (const payment of payments) {
    await client.payment.update({
      where: { id: payment.id },
      data: { phone: mask(payment.phone), paidPhone: payment.paidPhone === null ? null : mask(payment.paidPhone) },
    });
  }
}

/** `limit` stored callbacks that name one of Daraja's `ids`, by id, after `after` when given. */
export function callbacksNaming(
  db: AnyClient,
  ids: readonly string[],
  page: { after: string | undefined; limit: number },
): Promise<{ id: string; rawBody: string }[]> {
  return prismaOf(db).darajaCallback.findMany({
    where: { correlationId: { in: [...ids] }, ...(page.after ? { id: { gt: page.after } } : {}) },
    orderBy: { id: "asc" },
    take: page.limit,
    select: { id: true, rawBody: true },
  });
}

/** A stored callback's body replaced, in one statement of its own (the row is locked only while it is written). */
export async function rewriteCallbackBody(db: AnyClient, id: string, rawBody: string): Promise<void> {
  await prismaOf(db).darajaCallback.updateMany({ where: { id }, data: { rawBody } });
}
