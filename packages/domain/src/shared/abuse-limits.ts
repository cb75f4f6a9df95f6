/**
 * How the domain applies the abuse limits of docs/limits.md; the counting itself is
 * the Limiter's (in memory, or Redis shared by every instance).
 */
import { isIPv6 } from "node:net";
import type { RequestCtx } from "./request-context.js";
import { DomainError } from "./errors.js";
import type { LimitDecision, Limiter, LimitRule } from "./limiter.js";

/** A request whose abuse limits are counted. */
type Context = RequestCtx<{ limiter: Limiter }>;

export function rateLimitedError(retryAfter: number): DomainError {
  return new DomainError("RATE_LIMITED", undefined, {
    retryAfter: Math.max(1, Math.ceil(retryAfter)),
  });
}

/**
 * The key a client address is counted under. IPv6 customers commonly hold a whole /64 and may pick
 * any address in it, so IPv6 counts per /64; IPv4-mapped IPv6 counts as the IPv4 address.
 */
export function ipLimitKey(ip: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  if (mapped) return mapped[1]!;
  const address = ip.replace(/%.*$/, "");
  if (!isIPv6(address)) return ip;
  const groups = (part: string) => part.split(":").filter(Boolean).flatMap((g) => (g.includes(".") ? ["0", "0"] : [g]));
  const [head = "", tail] = address.split("::");
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const full = [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right];
  return `${full.slice(0, 4).map((g) => parseInt(g, 16).toString(16)).join(":")}::/64`;
}

/**
 * Counts one request of an unauthenticated auth operation (`ipLimited` on the procedure) against the
 * caller's IP (1,200 a minute). Only those: Kenyan customers often share one public IP (carrier-grade
 * NAT), so authenticated calls are never limited per IP.
 */
export async function countAuthRequest(ctx: Context): Promise<void> {
  const decision = await ctx.deps.limiter.consume("auth_requests_per_ip", ipLimitKey(ctx.request.ip));
  if (!decision.allowed) throw rateLimitedError(decision.retryAfter);
}

/**
 * The account a sign-in attempt of a known user counts against: its email, or for an account created
 * by phone sign-in (no email) its id.
 */
export function signInAccountOf(user: { tenantId: string; id: string; email: string | null }): { tenantId: string; email: string } {
  return { tenantId: user.tenantId, email: user.email ?? `user:${user.id}` };
}

/** The per-account key: tenant and (lower-cased) email, so unknown emails are limited exactly like known ones. */
export function accountKey(tenantId: string, email: string): string {
  return `${tenantId}:${email.toLowerCase()}`;
}

export interface SignInAttempt {
  /**
   * Runs the check (a password or code verification) and answers its result. A check that cannot be
   * made (the hashing was shed under load, or failed) is no failure: its points come back and the
   * error goes on to the caller, so a login storm cannot lock the accounts it slows down.
   */
  check<T>(verify: () => Promise<T>): Promise<T>;
  /** The password (or code) was right but a second factor is still due: this attempt is not a failure. */
  stepPassed(): Promise<void>;
  /** Fully authenticated: the account's failures are forgotten and this attempt is not a failure. */
  succeeded(): Promise<void>;
}

/**
 * Counts a sign-in attempt as failed *before* checking it, and gives the point back on success.
 * Counting first makes the limits hold under concurrency: a burst of parallel guesses cannot all pass
 * a check made before any of them failed.
 *
 * - per account (10 failures / 15 min, whatever the IP), always;
 * - per IP (100 failures / min), only for unauthenticated operations (`ip: true`).
 *
 * Throws RATE_LIMITED (with Retry-After) when either is exhausted.
 */
export function beginSignInAttempt(
  ctx: Context,
  account: { tenantId: string; email: string },
  options: { ip: boolean },
): Promise<SignInAttempt> {
  return beginAttempt(ctx, accountKey(account.tenantId, account.email), options);
}

/**
 * A signed-in caller proving themselves again (reauthenticate, a body proof, a second factor):
 * counted under the same rule but per user, apart from the sign-in count of the account's email, so a
 * stranger's wrong logins with that email cannot block the owner's proofs, and guesses made with a
 * stolen token still run into the limit.
 */
export function beginProofAttempt(ctx: Context, user: { tenantId: string; id: string }): Promise<SignInAttempt> {
  return beginAttempt(ctx, `${user.tenantId}:proof:${user.id}`, { ip: false });
}

async function beginAttempt(ctx: Context, key: string, options: { ip: boolean }): Promise<SignInAttempt> {
  const { limiter } = ctx.deps;
  const ip = ipLimitKey(ctx.request.ip);
  const [perAccount, perIp] = await Promise.all([
    limiter.consume("login_failures_per_account", key),
    options.ip ? limiter.consume("login_failures_per_ip", ip) : Promise.resolve<LimitDecision>({ allowed: true, retryAfter: 0 }),
  ]);
  const refundIp = () => (options.ip ? limiter.refund("login_failures_per_ip", ip) : Promise.resolve());
  if (!perAccount.allowed || !perIp.allowed) {
    // A refused attempt checks nothing, so it is no failure of the other key: a blocked address
    // cannot go on to lock accounts, nor a locked account's owner retrying block their shared address.
    await Promise.all([
      perAccount.allowed ? limiter.refund("login_failures_per_account", key) : undefined,
      perIp.allowed ? refundIp() : undefined,
    ]);
    throw rateLimitedError(Math.max(perAccount.allowed ? 0 : perAccount.retryAfter, perIp.allowed ? 0 : perIp.retryAfter));
  }
  const refundBoth = () => Promise.all([limiter.refund("login_failures_per_account", key), refundIp()]).then(() => undefined);
  return {
    async check(verify) {
      try {
        return await verify();
      } catch (error) {
        await refundBoth();
        throw error;
      }
    },
    stepPassed: refundBoth,
    async succeeded() {
      await Promise.all([limiter.reset("login_failures_per_account", key), refundIp()]);
    },
  };
}

/**
 * Lifts the per-account sign-in block, for a password reset: proving control of the mailbox is a
 * stronger proof than the password guesses the block guards against (docs/limits.md: "password reset
 * stays possible").
 */
export async function clearSignInFailures(ctx: Context, account: { tenantId: string; email: string }): Promise<void> {
  await ctx.deps.limiter.reset("login_failures_per_account", accountKey(account.tenantId, account.email));
}

/** One point under one rule, for one key. */
export type Count = readonly [rule: LimitRule, key: string];

/** Points consumed together, to give back together (a request that turned out not to need them). */
export interface CountedPoints {
  refund(): Promise<void>;
}

/**
 * Counts one event under every rule at once. If any rule refuses, the points the others took are given
 * back (a refused request does nothing, so it uses up no other budget) and RATE_LIMITED is thrown with
 * the longest wait.
 */
export async function consumeAll(limiter: Limiter, counts: readonly Count[]): Promise<CountedPoints> {
  const decisions = await Promise.all(counts.map(([rule, key]) => limiter.consume(rule, key)));
  const refund = async (which: (decision: LimitDecision) => boolean) => {
    await Promise.all(counts.map(([rule, key], i) => (which(decisions[i]!) ? limiter.refund(rule, key) : undefined)));
  };
  const refused = decisions.filter((decision) => !decision.allowed);
  if (refused.length > 0) {
    await refund((decision) => decision.allowed);
    throw rateLimitedError(Math.max(...refused.map((decision) => decision.retryAfter)));
  }
  return { refund: () => refund(() => true) };
}
