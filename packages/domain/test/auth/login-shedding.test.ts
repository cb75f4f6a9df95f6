/**
 * Under a sign-in storm the hashing admission sheds logins (docs/performance.md#password-hashing-and-the-event-loop);
 * a shed login must cost almost nothing: no limiter points, no user query.
 */
import { describe, expect, it } from "vitest";
import { createPasswordHasher, type PasswordHashing } from "../../src/auth/passwords.js";
import { login } from "../../src/auth/service.js";
import { unlimited, type Limiter } from "../../src/shared/limiter.js";
import { DomainError } from "../../src/shared/errors.js";
import type { TenantCtx } from "../../src/trpc.js";
import { fakeClock } from "../support/fake-ports.js";

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A hasher whose one slot is taken by a hash that never finishes, after a decoy that took 60 ms: the next verify is shed. */
async function saturatedHasher() {
  const clock = fakeClock();
  const finishers: Array<() => void> = [];
  const hashing: PasswordHashing = {
    hash: () => new Promise((resolve) => finishers.push(() => resolve("hashed"))),
    verify: () => new Promise(() => {}),
  };
  const created = createPasswordHasher({ hashing, clock, concurrency: 1, maxWaitMs: 0, shedPauseMs: 0 });
  await settle();
  clock.advance(60);
  finishers.shift()!();
  const hasher = await created;
  void hasher.verify("hashed", "someone else signing in");
  return hasher;
}

describe("a login shed by the hashing admission", () => {
  it("answers RATE_LIMITED with Retry-After before counting the attempt or reading the user", async () => {
    const work: string[] = [];
    const limiter: Limiter = {
      consume: async (rule) => {
        work.push(`consume ${rule}`);
        return { allowed: true, retryAfter: 0 };
      },
      refund: async (rule) => void work.push(`refund ${rule}`),
      reset: async (rule) => void work.push(`reset ${rule}`),
      peek: async () => ({ allowed: true, retryAfter: 0 }),
      tally: unlimited.tally,
      numberOf: unlimited.numberOf,
    };
    const ctx = {
      deps: {
        limiter,
        passwords: await saturatedHasher(),
        db: {
          sql: {
            query: async () => {
              work.push("user query");
              return [];
            },
          },
        },
      },
      tenant: { id: "shop", settings: { requireVerifiedEmail: false } },
      request: { ip: "203.0.113.9" },
    } as unknown as TenantCtx;

    const shed = await login(ctx, { email: "storm@example.com", password: "a password" }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(shed).toBeInstanceOf(DomainError);
    expect((shed as DomainError).code).toBe("RATE_LIMITED");
    expect((shed as DomainError).retryAfter).toBe(1);
    expect(work).toEqual([]);
  });
});
