/**
 * What a text costs (docs/limits.md#texts). Every text the service writes to the SMS outbox is charged
 * here, once it is known to be sent and before it is written, and nothing else is: a request that
 * sends no text costs no budget. It counts:
 *
 * - the shop's budget, `phone_codes_per_tenant` (over it: 429 RATE_LIMITED);
 * - for a request without a session, its address at the shop, `sms_texts_per_ip` (over it: 429,
 *   which phone/start keeps to itself: its caller sees 200 and nothing is sent); for a signed-in
 *   customer, the account, `sms_texts_per_account` (429), so one account cannot spend the shop's budget;
 * - the platform's texts, `sms_texts_platform`: once the platform has sent its number in the window,
 *   a shop that sent more than a quarter of them is refused (503 SMS_UNAVAILABLE) and the others go on.
 *
 * Each is counted first and given back when any refuses, so parallel requests cannot pass a limit
 * together and a refused text costs nothing.
 */
import type { Tenant } from "../shared/tenant.js";
import { DomainError } from "../shared/errors.js";
import { ipLimitKey, rateLimitedError } from "../shared/abuse-limits.js";
import type { LimitRule, Tally } from "../shared/limiter.js";
import type { TenantCtx } from "./ports.js";

/** The rules a shop may set its own number for (tenant settings `limits`, docs/tenants.md#settings). */
export type ShopLimitRule = "phone_codes_per_tenant" | "sms_texts_per_ip" | "sms_texts_per_account";

/** The shop's own number for a rule, where it has one; otherwise the process's applies. */
export function shopLimit(tenant: Tenant, rule: ShopLimitRule): number | undefined {
  return tenant.settings.limits?.[rule];
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
async function warnPastPlatformLimit(ctx: TenantCtx, tally: Tally, sent: TextsSent, refused: boolean): Promise<void> {
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
  /** A signed-in customer: counted against the account (`sms_texts_per_account`). */
  | { kind: "account"; userId: string };

/** One point under a rule, for a key, compared with the shop's own number where it has one. */
type Count = readonly [rule: LimitRule, key: string, limit: number | undefined];

function payerCount(ctx: TenantCtx, payer: TextPayer): Count {
  const { tenant } = ctx;
  return payer.kind === "address"
    ? ["sms_texts_per_ip", `${tenant.id}:${ipLimitKey(ctx.request.ip)}`, shopLimit(tenant, "sms_texts_per_ip")]
    : ["sms_texts_per_account", `${tenant.id}:${payer.userId}`, shopLimit(tenant, "sms_texts_per_account")];
}

/**
 * Charges one text about to be written to the outbox, or throws RATE_LIMITED (the shop's budget, the
 * address's or the account's) or SMS_UNAVAILABLE (the platform's) having charged nothing. Every path
 * that texts calls it (through issuePhoneCode for codes), after its own rules (the per-phone limit)
 * have said yes.
 */
export async function chargeText(ctx: TenantCtx, payer: TextPayer): Promise<TextCharge> {
  const { limiter } = ctx.deps;
  const counts: Count[] = [["phone_codes_per_tenant", ctx.tenant.id, shopLimit(ctx.tenant, "phone_codes_per_tenant")], payerCount(ctx, payer)];
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
  const platformRefused = platformRefusesShop(sent, tally.limit);
  await warnPastPlatformLimit(ctx, tally, sent, platformRefused);
  if (platformRefused) {
    await Promise.all([refundCounts(), refundTally()]);
    throw smsUnavailable(tally.retryAfter);
  }
  return { refund: () => Promise.all([refundCounts(), refundTally()]).then(() => undefined) };
}
