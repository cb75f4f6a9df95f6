/**
 * Codes texted to a phone (docs/phone-sign-in.md): 6 digits, only their hash stored, single use,
 * PHONE_CODE_TTL_SECONDS (10 minutes), 5 tries, and at most 3 texts per phone per 15 minutes. The
 * code row and its text are written in one transaction, so a code exists exactly when its text does,
 * and the text is charged (sms/text-budget.ts) only once the per-phone limit has let it through.
 */
import { outboxes, phoneCodes, type TenantDb, type TenantTx } from "@mteja/db";
import type { Context, TenantCtx } from "../ports.js";
import { equalsConstantTime, sha256 } from "../../shared/secrets.js";
import { chargeText, type TextCharge, type TextPayer } from "../../sms/text-budget.js";
import { t, type Locale } from "@mteja/i18n";

export type PhoneCodePurpose = "sign_in" | "verify";

export const phoneCodeRules = {
  digits: 6,
  maxTries: 5,
  textsPerWindow: 3,
  windowSeconds: 15 * 60,
} as const;

function hashCode(tenantId: string, phone: string, code: string): string {
  return sha256(`phone-code:${tenantId}:${phone}:${code}`);
}

function newCode(ctx: Context): string {
  return String(ctx.deps.random.int(10 ** phoneCodeRules.digits)).padStart(phoneCodeRules.digits, "0");
}

export interface CodeRequest {
  tenantId: string;
  shop: string;
  phone: string;
  purpose: PhoneCodePurpose;
  /** The account the code is for (me/phone/start; phone/start for a phone an account has), kept on the code and its text. */
  userId: string | null;
  locale: Locale;
  /** Who the text is charged to (docs/limits.md#texts). */
  payer: TextPayer;
}

/**
 * Writes a code and its text, unless the phone already had its 3 texts in the last 15 minutes.
 * Serialised per phone (a transaction-scoped advisory lock), so parallel requests cannot pass the
 * count together. Returns whether a text was written; a text its budgets refuse throws (RATE_LIMITED,
 * SMS_UNAVAILABLE) and writes nothing.
 */
export async function issuePhoneCode(ctx: TenantCtx, db: TenantDb, request: CodeRequest): Promise<boolean> {
  const { deps } = ctx;
  const now = deps.clock.now();
  const ttlSeconds = deps.config.phoneCodeTtlSeconds;
  const code = newCode(ctx);
  let charge: TextCharge | undefined;
  const written = deps.db.transaction(db, async (tx) => {
    await phoneCodes.lockPhone(tx, request.tenantId, request.phone);
    const windowStart = new Date(now.getTime() - phoneCodeRules.windowSeconds * 1000);
    const recent = await phoneCodes.countSentSince(tx, request.phone, windowStart);
    // Over the per-phone limit nothing is sent, so nothing is charged.
    if (recent >= phoneCodeRules.textsPerWindow) return false;
    charge = await chargeText(ctx, request.payer);
    const expiresAt = new Date(now.getTime() + ttlSeconds * 1000);
    // Only the newest code counts: asking again retires the one before (one live code per phone and purpose).
    const holder = request.purpose === "verify" ? { userId: request.userId } : { phone: request.phone };
    await phoneCodes.retireUnused(tx, request.purpose, holder, now);
    await phoneCodes.create(tx, {
      tenantId: request.tenantId,
      phone: request.phone,
      purpose: request.purpose,
      userId: request.userId,
      codeHash: hashCode(request.tenantId, request.phone, code),
      expiresAt,
      createdAt: now,
    });
    const body = t(request.locale, "sms.phone_code", { code, shop: request.shop, minutes: Math.max(1, Math.round(ttlSeconds / 60)) });
    // Stored as Daraja writes it (2547…); Africa's Talking wants the international form.
    const { tenantId, userId } = request;
    const text = { tenantId, kind: "phone_code", to: `+${request.phone}`, userId, body, expiresAt };
    await outboxes.enqueueText(tx, text, now);
    return true;
  });
  return written.catch(async (error: unknown) => {
    // Not written after all: the text costs nothing.
    await charge?.refund();
    throw error;
  });
}

export interface CodeLookup {
  tenantId: string;
  purpose: PhoneCodePurpose;
  /** The phone the code was sent to (sign-in), or the account it was sent for (verify). */
  phone?: string;
  userId?: string;
}

/** The spent code (phone and account it was for), or undefined when the code is wrong, used up or expired. */
export async function spendPhoneCode(
  ctx: Context,
  db: TenantDb | TenantTx,
  lookup: CodeLookup,
  code: string,
): Promise<{ phone: string; userId: string | null } | undefined> {
  const now = ctx.deps.clock.now();
  // The one live code (issuing a new one retires the one before).
  const { purpose, phone, userId } = lookup;
  const latest = await phoneCodes.findNewestUnused(db, { purpose, phone, userId, unexpiredAt: now });
  if (!latest) return undefined;
  // A try is taken before the comparison, in one conditional update: parallel guesses cannot share one.
  if (!(await phoneCodes.takeTry(db, latest.id, phoneCodeRules.maxTries))) return undefined;
  if (!/^\d{6}$/.test(code) || !equalsConstantTime(hashCode(latest.tenantId, latest.phone, code), latest.codeHash)) return undefined;
  if (!(await phoneCodes.spend(db, latest.id, now))) return undefined;
  return { phone: latest.phone, userId: latest.userId };
}

/**
 * A sign-up by phone: the codes texted to the phone while no account had it (the one just spent among
 * them) and their texts become the new account's, as its later codes and notices are from the start,
 * so its erasure finds them whatever its phone is by then (docs/data-rights.md#evidence).
 */
export async function linkCodesToNewAccount(tx: TenantTx, { phone, userId }: { phone: string; userId: string }): Promise<void> {
  await phoneCodes.linkToAccount(tx, phone, userId);
  await outboxes.assignUnownedTexts(tx, `+${phone}`, userId);
}
