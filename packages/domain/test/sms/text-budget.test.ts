import { describe, expect, it } from "vitest";
import type { Limiter, LimitRule } from "../../src/shared/limiter.js";
import { DomainError } from "../../src/shared/errors.js";
import { assertShopCanText, chargeText, platformRefusesShop } from "../../src/sms/text-budget.js";
import type { TenantCtx } from "../../src/trpc.js";

describe("the platform rule (sms_texts_platform)", () => {
  it("refuses nobody below the platform's number, however much of it one shop sent", () => {
    expect(platformRefusesShop({ platform: 4999, shop: 4999 }, 5000)).toBe(false);
  });

  it("past it, refuses a shop that sent more than a quarter of the platform's texts, and only such a shop", () => {
    expect(platformRefusesShop({ platform: 5000, shop: 1251 }, 5000)).toBe(true);
    // Exactly a quarter is not more than a quarter.
    expect(platformRefusesShop({ platform: 5000, shop: 1250 }, 5000)).toBe(false);
    expect(platformRefusesShop({ platform: 5000, shop: 0 }, 5000)).toBe(false);
    // The share is of the texts sent so far in the window, so a shop that goes on sending becomes heavy.
    expect(platformRefusesShop({ platform: 8000, shop: 2000 }, 5000)).toBe(false);
    expect(platformRefusesShop({ platform: 8000, shop: 2001 }, 5000)).toBe(true);
  });

  it("never refuses without limits (RATE_LIMITS=off: an infinite number)", () => {
    expect(platformRefusesShop({ platform: 10 ** 9, shop: 10 ** 9 }, Number.POSITIVE_INFINITY)).toBe(false);
  });
});

const defaultNumbers: Partial<Record<LimitRule, number>> = {
  phone_codes_per_tenant: 10,
  // Signed-in texts may use the whole budget unless a test says otherwise.
  sms_texts_signed_in_per_tenant: 10,
  sms_texts_per_ip: 2,
  sms_texts_signed_in_per_ip: 6,
  sms_texts_per_account: 5,
  sms_texts_platform: 4,
};

/** Counts in memory like the real limiter: a count per rule and key, and a tally per rule and key. */
function countingLimiter(ruleNumbers: Partial<Record<LimitRule, number>> = {}) {
  const numbers = { ...defaultNumbers, ...ruleNumbers };
  const counts = new Map<string, number>();
  const tallies = new Map<string, number>();
  const id = (rule: LimitRule, key: string) => `${rule}|${key}`;
  const add = (map: Map<string, number>, name: string, by: number) => {
    const next = Math.max(0, (map.get(name) ?? 0) + by);
    map.set(name, next);
    return next;
  };
  const limiter: Limiter = {
    consume: async (rule, key, limit = numbers[rule]!) => {
      const next = add(counts, id(rule, key), 1);
      return { allowed: next <= limit, retryAfter: next <= limit ? 0 : 60 };
    },
    peek: async (rule, key, limit = numbers[rule]!) => ({ allowed: (counts.get(id(rule, key)) ?? 0) < limit, retryAfter: 60 }),
    reset: async (rule, key) => void counts.delete(id(rule, key)),
    refund: async (rule, key) => void add(counts, id(rule, key), -1),
    tally: async (rule, keys, by) => ({ counts: keys.map((key) => add(tallies, id(rule, key), by)), limit: numbers[rule]!, retryAfter: 1800 }),
    numberOf: (rule) => numbers[rule]!,
  };
  return {
    limiter,
    count: (rule: LimitRule, key: string) => counts.get(id(rule, key)) ?? 0,
    tally: (key: string) => tallies.get(id("sms_texts_platform", key)) ?? 0,
  };
}

function shopContext(limiter: Limiter, tenantId: string, options: { ip?: string; limits?: Record<string, number> } = {}) {
  const warnings: unknown[] = [];
  const ctx = {
    deps: { limiter, logger: { warn: (fields: unknown) => void warnings.push(fields), info() {}, error() {}, debug() {} } },
    tenant: { id: tenantId, name: tenantId, active: true, settings: options.limits ? { limits: options.limits } : {} },
    request: { ip: options.ip ?? "196.201.214.200" },
  } as unknown as TenantCtx;
  return { ctx, warnings };
}

const codeOf = (promise: Promise<unknown>) => promise.then(() => "charged", (error: unknown) => (error instanceof DomainError ? error.code : error));

describe("charging a text", () => {
  it("counts it to the shop, to the address of an unauthenticated request or to the signed-in account, and to the platform", async () => {
    const { limiter, count, tally } = countingLimiter();
    await chargeText(shopContext(limiter, "duka").ctx, { kind: "address" });
    await chargeText(shopContext(limiter, "duka").ctx, { kind: "account", userId: "wanjiku" });
    expect(count("phone_codes_per_tenant", "duka")).toBe(2);
    expect(count("sms_texts_per_ip", "duka:196.201.214.200")).toBe(1);
    expect(count("sms_texts_signed_in_per_ip", "duka:196.201.214.200")).toBe(1);
    expect(count("sms_texts_per_account", "duka:wanjiku")).toBe(1);
    expect([tally("platform"), tally("shop:duka")]).toEqual([2, 2]);
  });

  it("sends texts for signed-in customers only while the shop's count is below their share: the rest is kept for sign-in codes", async () => {
    const { limiter, count } = countingLimiter({ sms_texts_platform: 1000 });
    // A budget of 10 of its own: signed-in customers may use half of it.
    const shop = (ip: string) => shopContext(limiter, "duka", { ip, limits: { phone_codes_per_tenant: 10 } }).ctx;
    for (let i = 0; i < 5; i++) expect(await codeOf(chargeText(shop(`41.90.64.${i}`), { kind: "account", userId: `user-${i}` }))).toBe("charged");
    expect(await codeOf(chargeText(shop("41.90.64.9"), { kind: "account", userId: "fresh" }))).toBe("RATE_LIMITED");
    expect(count("phone_codes_per_tenant", "duka")).toBe(5);
    // Sign-in codes go on to the end of the budget.
    for (let i = 0; i < 5; i++) expect(await codeOf(chargeText(shop(`196.201.214.${i}`), { kind: "address" }))).toBe("charged");
    expect(await codeOf(chargeText(shop("196.201.214.9"), { kind: "address" }))).toBe("RATE_LIMITED");
    // Sign-in codes sent first leave signed-in customers nothing beyond their share of the count either.
    const { limiter: other } = countingLimiter({ sms_texts_signed_in_per_tenant: 3 });
    const soko = (limits: Record<string, number>) => shopContext(other, "soko", { limits }).ctx;
    for (let i = 0; i < 2; i++) await chargeText(shopContext(other, "soko", { ip: `10.0.0.${i}` }).ctx, { kind: "address" });
    expect(await codeOf(chargeText(soko({}), { kind: "account", userId: "a" }))).toBe("charged");
    expect(await codeOf(chargeText(soko({}), { kind: "account", userId: "b" }))).toBe("RATE_LIMITED");
    // A shop's own share replaces the process's.
    expect(await codeOf(chargeText(soko({ sms_texts_signed_in_per_tenant: 4 }), { kind: "account", userId: "c" }))).toBe("charged");
  });

  it("counts signed-in texts per address apart from the address's sign-in codes", async () => {
    const { limiter, count } = countingLimiter();
    const ctx = shopContext(limiter, "duka", { limits: { sms_texts_signed_in_per_ip: 2 } }).ctx;
    for (const userId of ["a", "b"]) expect(await codeOf(chargeText(ctx, { kind: "account", userId }))).toBe("charged");
    expect(await codeOf(chargeText(ctx, { kind: "account", userId: "c" }))).toBe("RATE_LIMITED");
    expect(count("sms_texts_per_account", "duka:c")).toBe(0);
    expect(await codeOf(chargeText(ctx, { kind: "address" }))).toBe("charged");
  });

  it("counts a security notice in the platform's texts, never in the shop's budget, and never refuses it", async () => {
    const { limiter, count, tally } = countingLimiter();
    const ctx = shopContext(limiter, "duka", { limits: { phone_codes_per_tenant: 2 } }).ctx;
    await chargeText(ctx, { kind: "address" });
    // The platform's number (4) is spent: notices still go, counted as the platform's and the shop's share of them.
    for (let i = 0; i < 4; i++) expect(await codeOf(chargeText(ctx, { kind: "notice" }))).toBe("charged");
    expect([tally("platform"), tally("shop:duka")]).toEqual([5, 5]);
    // The budget is the sign-in codes': notices took none of it (one text of 2 is left)...
    expect(count("phone_codes_per_tenant", "duka")).toBe(1);
    await expect(assertShopCanText(ctx)).rejects.toMatchObject({ code: "SMS_UNAVAILABLE" });
  });

  it("keeps the budget of sign-in codes whatever notices were sent", async () => {
    const { limiter, count } = countingLimiter();
    const ctx = shopContext(limiter, "duka", { limits: { phone_codes_per_tenant: 1 } }).ctx;
    for (let i = 0; i < 3; i++) expect(await codeOf(chargeText(ctx, { kind: "notice" }))).toBe("charged");
    expect(await codeOf(chargeText(ctx, { kind: "address" }))).toBe("charged");
    expect(count("phone_codes_per_tenant", "duka")).toBe(1);
  });

  it("charges nothing when any count refuses: the address's refusal gives the shop's point back", async () => {
    const { limiter, count, tally } = countingLimiter();
    for (let i = 0; i < 2; i++) await chargeText(shopContext(limiter, "duka").ctx, { kind: "address" });
    expect(await codeOf(chargeText(shopContext(limiter, "duka").ctx, { kind: "address" }))).toBe("RATE_LIMITED");
    expect(count("phone_codes_per_tenant", "duka")).toBe(2);
    expect(count("sms_texts_per_ip", "duka:196.201.214.200")).toBe(2);
    expect(tally("platform")).toBe(2);
    // Another address of the same shop is not the one that is spent.
    expect(await codeOf(chargeText(shopContext(limiter, "duka", { ip: "41.90.64.7" }).ctx, { kind: "address" }))).toBe("charged");
  });

  it("uses a shop's own numbers where it has them", async () => {
    const { limiter } = countingLimiter();
    const { ctx } = shopContext(limiter, "duka", { limits: { phone_codes_per_tenant: 1 } });
    expect(await codeOf(chargeText(ctx, { kind: "address" }))).toBe("charged");
    expect(await codeOf(chargeText(ctx, { kind: "address" }))).toBe("RATE_LIMITED");
    await expect(assertShopCanText(ctx)).rejects.toMatchObject({ code: "RATE_LIMITED" });
    const perAccount = shopContext(limiter, "soko", { limits: { sms_texts_per_account: 1 } }).ctx;
    expect(await codeOf(chargeText(perAccount, { kind: "account", userId: "wanjiku" }))).toBe("charged");
    expect(await codeOf(chargeText(perAccount, { kind: "account", userId: "wanjiku" }))).toBe("RATE_LIMITED");
    expect(await codeOf(chargeText(perAccount, { kind: "account", userId: "achieng" }))).toBe("charged");
  });

  it("past the platform's number refuses the heavy shop with SMS_UNAVAILABLE, giving every count back, and serves a light one", async () => {
    const { limiter, count, tally } = countingLimiter();
    for (let i = 0; i < 3; i++) await chargeText(shopContext(limiter, "heavy").ctx, { kind: "account", userId: "wanjiku" });
    await chargeText(shopContext(limiter, "light").ctx, { kind: "account", userId: "wanjiku" });
    const heavy = shopContext(limiter, "heavy");
    await expect(chargeText(heavy.ctx, { kind: "account", userId: "wanjiku" })).rejects.toMatchObject({ code: "SMS_UNAVAILABLE", status: 503, retryAfter: 1800 });
    await expect(assertShopCanText(heavy.ctx)).rejects.toMatchObject({ code: "SMS_UNAVAILABLE" });
    expect(count("phone_codes_per_tenant", "heavy")).toBe(3);
    expect([tally("platform"), tally("shop:heavy")]).toEqual([4, 3]);
    expect(await codeOf(assertShopCanText(shopContext(limiter, "light").ctx))).toBe("charged");
    expect(await codeOf(chargeText(shopContext(limiter, "light").ctx, { kind: "account", userId: "wanjiku" }))).toBe("charged");
    // Warned once, by the first request that found the platform past its number.
    expect(heavy.warnings).toEqual([expect.objectContaining({ platformTexts: 4, limit: 4, tenantId: "heavy", refused: true })]);
  });
});
