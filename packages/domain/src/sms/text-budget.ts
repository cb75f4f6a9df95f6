/**
 * What a text costs (docs/limits.md#texts). Every text the service writes to the SMS outbox is charged
 * here, once it is known to be sent and before it is written, and nothing else is: a request that
 * sends no text costs no budget. It counts:
 *
 * - the shop's budget, `phone_codes_per_tenant` (over it: 429 RATE_LIMITED). Texts for signed-in
 *   customers are compared with a lower number, `sms_texts_signed_in_per_tenant` (half the budget), on
 *   the same count: they are sent only while the shop has sent fewer, so sign-in codes always keep the
 *   rest of the budget, in every window of it, however many accounts ask;
 * - for a request without a session, its address at the shop, `sms_texts_per_ip` (over it: 429,
 *   which phone/start keeps to itself: its caller sees 200 and nothing is sent); for a signed-in
 *   customer, its address apart, `sms_texts_signed_in_per_ip`, and the account, `sms_texts_per_account`
 *   (429), so neither one account nor one address of throw-away accounts spends the shop's budget;
 * - the platform's texts, `sms_texts_platform`: once the platform has sent its number in the window,
 *   a shop that sent more than a quarter of them is refused (503 SMS_UNAVAILABLE) and the others go on.
 *
 * Each is counted first and given back when any refuses, so parallel requests cannot pass a limit
 * together and a refused text costs nothing. A security notice is counted in the platform's texts (and
 * the shop's share of them) but not in the shop's budget, and never refused: the owner must hear of a
 * change, and a loop of factor changes must not spend the budget of sign-in codes.
 */
import type { Tenant } from "../shared/tenant.js";
import { DomainError } from "../shared/errors.js";
import { ipLimitKey, rateLimitedError } from "../shared/abuse-limits.js";
import type { LimitRule, Limiter, Tally } from "../shared/limiter.js";
import type { RequestCtx } from "../shared/request-context.js";
import type { SmsPorts, TenantCtx } from "./ports.js";

/** What charging a text needs of its request: the shop that pays, the limiter, the caller's address. */
export type TextCtx = RequestCtx<SmsPorts> & { tenant: Tenant };

/** The rules a shop may set its own number for (tenant settings `limits`, docs/tenants.md#settings). */
export type ShopLimitRule =
  | "phone_codes_per_tenant"
  | "sms_texts_per_ip"
  | "sms_texts_per_account"
  | "sms_texts_signed_in_per_tenant"
  | "sms_texts_signed_in_per_ip"
  | "security_notices_per_account";

/** The shop's own number for a rule, where it has one; otherwise the process's applies. */
export function shopLimit(tenant: Tenant, rule: ShopLimitRule): number | undefined {
  return tenant.settings.limits?.[rule];
}

/**
 * How much of the shop's budget texts for signed-in customers may use: the shop's own
 * `sms_texts_signed_in_per_tenant`; else, for a shop with a budget of its own, half of it; else the
 * process's (RATE_LIMIT_RULES, or half the process's budget). Never more than the budget.
 */
export function signedInShare(tenant: Tenant, limiter: Limiter): number {
  const ownBudget = shopLimit(tenant, "phone_codes_per_tenant");
  const budget = ownBudget ?? limiter.numberOf("phone_codes_per_tenant");
  const share = shopLimit(tenant, "sms_texts_signed_in_per_tenant") ?? (ownBudget !== undefined ? Math.floor(ownBudget / 2) : limiter.numberOf("sms_texts_signed_in_per_tenant"));
  return Math.min(share, budget);
}

/** Texts of the window, before the one in question. */
export interface TextsSent {
  platform: number;
  shop: number;
}

/**
 * The platform rule: once the platform has sent its number of texts in the window (`platformLimit`),
 * a shop whose texts are more than a quarter of the platform's is refused; below the number, nobody is.
 */
export function platformRefusesShop(sent: TextsSent, platformLimit: number): boolean {
  return sent.platform >= platformLimit && sent.shop * 4 > sent.platform;
}

const platformKey = "platform";
const shopKey = (tenant: Tenant) => `shop:${tenant.id}`;

function smsUnavailable(retryAfter: number): DomainError {
  return new DomainError("SMS_UNAVAILABLE", undefined, { retryAfter });
}

/** One warning per window when the platform is past its number, whichever instance sees it first. */
async function warnPastPlatformLimit(ctx: TextCtx, tally: Tally, sent: TextsSent, refused: boolean): Promise<void> {
  if (sent.platform < tally.limit) return;
  const [marks] = (await ctx.deps.limiter.tally("sms_texts_platform", ["warned"], 1)).counts;
  if (marks !== 1) return;
  ctx.deps.logger.warn(
    { platformTexts: sent.platform, limit: tally.limit, tenantId: ctx.tenant.id, shopTexts: sent.shop, refused, windowEndsInSeconds: tally.retryAfter },
    "the platform has sent sms_texts_platform texts this window: shops with more than a quarter of them are refused (503 SMS_UNAVAILABLE) until it ends",
  );
}

/**
 * Before anything is sent: whether the shop may text at all (its budget, its share of the platform's
 * texts). It reads only the shop's counts, never the phone's, so an answer that depends on it says
 * nothing about the phone. Throws RATE_LIMITED or SMS_UNAVAILABLE.
 */
export async function assertShopCanText(ctx: TenantCtx): Promise<void> {
  const { limiter } = ctx.deps;
  const [budget, tally] = await Promise.all([
    limiter.peek("phone_codes_per_tenant", ctx.tenant.id, shopLimit(ctx.tenant, "phone_codes_per_tenant")),
    limiter.tally("sms_texts_platform", [platformKey, shopKey(ctx.tenant)], 0),
  ]);
  if (!budget.allowed) throw rateLimitedError(budget.retryAfter);
  const sent = { platform: tally.counts[0]!, shop: tally.counts[1]! };
  const refused = platformRefusesShop(sent, tally.limit);
  await warnPastPlatformLimit(ctx, tally, sent, refused);
  if (refused) throw smsUnavailable(tally.retryAfter);
}

/** A text charged: `refund` gives every count back, if the text could not be written after all. */
export interface TextCharge {
  refund(): Promise<void>;
}

/** Who asked for the text, besides the shop that pays for it. */
export type TextPayer =
  /** A request without a session: counted against its address at the shop (`sms_texts_per_ip`). */
  | { kind: "address" }
  /**
   * A signed-in customer (me/phone/start, reauthenticate/sms, the codes that confirm a change): within
   * the signed-in share of the budget, and counted against its address (`sms_texts_signed_in_per_ip`)
   * and its account (`sms_texts_per_account`).
   */
  | { kind: "account"; userId: string }
  /** A security notice to an account's phone: counted in the platform's texts only, never refused. */
  | { kind: "notice" };

/** One point under a rule, for a key, compared with the shop's own number where it has one. */
type Count = readonly [rule: LimitRule, key: string, limit: number | undefined];

function countsOf(ctx: TextCtx, payer: TextPayer): Count[] {
  const { tenant } = ctx;
  const { limiter } = ctx.deps;
  const address = `${tenant.id}:${ipLimitKey(ctx.request.ip)}`;
  switch (payer.kind) {
    case "address":
      return [
        ["phone_codes_per_tenant", tenant.id, shopLimit(tenant, "phone_codes_per_tenant")],
        ["sms_texts_per_ip", address, shopLimit(tenant, "sms_texts_per_ip")],
      ];
    case "account":
      return [
        // The budget's own count, compared with the signed-in share: the rest is kept for sign-in codes.
        ["phone_codes_per_tenant", tenant.id, signedInShare(tenant, limiter)],
        ["sms_texts_signed_in_per_ip", address, shopLimit(tenant, "sms_texts_signed_in_per_ip")],
        ["sms_texts_per_account", `${tenant.id}:${payer.userId}`, shopLimit(tenant, "sms_texts_per_account")],
      ];
    case "notice":
      // Only the platform's texts: in the shop's budget, a loop of factor changes could spend the sign-in codes'.
      return [];
    default:
      return payer satisfies never;
  }
}

/**
 * Charges one text about to be written to the outbox, or throws RATE_LIMITED (the shop's budget or its
 * signed-in share, the address's or the account's) or SMS_UNAVAILABLE (the platform's) having charged
 * nothing; a security notice is charged and never refused. Every path that texts calls it (through
 * issuePhoneCode for codes, enqueueSecurityText for notices), after its own rules (the per-phone limit)
 * have said yes.
 */
export async function chargeText(ctx: TextCtx, payer: TextPayer): Promise<TextCharge> {
  const { limiter } = ctx.deps;
  const counts = countsOf(ctx, payer);
  const decisions = await Promise.all(counts.map(([rule, key, limit]) => limiter.consume(rule, key, limit)));
  const refundCounts = () => Promise.all(counts.map(([rule, key]) => limiter.refund(rule, key))).then(() => undefined);
  const refused = decisions.filter((decision) => !decision.allowed);
  if (refused.length > 0) {
    await refundCounts();
    throw rateLimitedError(Math.max(...refused.map((decision) => decision.retryAfter)));
  }

  const keys = [platformKey, shopKey(ctx.tenant)];
  const tally = await limiter.tally("sms_texts_platform", keys, 1);
  const sent = { platform: tally.counts[0]! - 1, shop: tally.counts[1]! - 1 };
  const refundTally = () => limiter.tally("sms_texts_platform", keys, -1).then(() => undefined);
  // A notice is never refused: it only makes the shop heavier for the texts after it.
  const platformRefused = payer.kind !== "notice" && platformRefusesShop(sent, tally.limit);
  await warnPastPlatformLimit(ctx, tally, sent, platformRefused);
  if (platformRefused) {
    await Promise.all([refundCounts(), refundTally()]);
    throw smsUnavailable(tally.retryAfter);
  }
  return { refund: () => Promise.all([refundCounts(), refundTally()]).then(() => undefined) };
}
