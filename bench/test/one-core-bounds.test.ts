import { describe, expect, it } from "vitest";
import { oneCoreBounds } from "../one-core-bounds.mjs";

describe("oneCoreBounds", () => {
  it("with nothing but hashes on the core, reads-first is the M/D/1 sojourn (Pollaczek–Khinchine)", () => {
    // 10 hashes a second of 50 ms: ρ = 0.5, wait = λ·S²/(2(1−ρ)) = 0.01 · 2500 / 1 = 25 ms.
    const bounds = oneCoreBounds({ loginsPerSecond: 10, hashMs: 50, busy: 0.5 });
    expect(bounds?.hashShare).toBeCloseTo(0.5);
    expect(bounds?.readsFirstHashMs).toBeCloseTo(75);
    // A read finds those 25 ms of hashing ahead of it, and the hashes arriving meanwhile go first: 25 / (1 − 0.5).
    expect(bounds?.hashesFirstReadWaitMs).toBeCloseTo(50);
  });

  it("reads first: the loop's share stretches a hash (S / (1 − ρ_reads)) and the queue behind it", () => {
    // Hashes 0.25 of the core, reads 0.35: S/(1−0.35) + (0.01·625/2)/(0.65·0.4).
    const bounds = oneCoreBounds({ loginsPerSecond: 10, hashMs: 25, busy: 0.6 });
    expect(bounds?.readsFirstHashMs).toBeCloseTo(25 / 0.65 + 3.125 / (0.65 * 0.4));
    expect(bounds?.hashesFirstReadWaitMs).toBeCloseTo(3.125 / (0.75 * 0.4));
  });

  it("both bounds grow as the same hashes meet a busier core", () => {
    const at = (busy: number) => oneCoreBounds({ loginsPerSecond: 12.8, hashMs: 27.8, busy });
    const [sixty, eighty] = [at(0.6), at(0.86)];
    expect(eighty!.readsFirstHashMs).toBeGreaterThan(2 * sixty!.readsFirstHashMs);
    expect(eighty!.hashesFirstReadWaitMs).toBeGreaterThan(2 * sixty!.hashesFirstReadWaitMs);
  });

  it("goalRoom: how far above its mean each kind's p99 may sit for both goals to hold under any policy", () => {
    // Unfinished work 0.01·2500/2 / (1 − 0.8) = 62.5 ms; hashes 0.5 of the core at ≤ 100 ms, reads 0.3 at ≤ 20.
    const bounds = oneCoreBounds({ loginsPerSecond: 10, hashMs: 50, busy: 0.8, hashGoalMs: 100, readGoalMs: 20 });
    expect(bounds?.goalRoom).toBeCloseTo((0.5 * 100 + 0.3 * 20) / 62.5);
    // The same goals on a quieter core leave more room; without goals there is none to report.
    expect(oneCoreBounds({ loginsPerSecond: 10, hashMs: 50, busy: 0.6, hashGoalMs: 100, readGoalMs: 20 })!.goalRoom).toBeGreaterThan(bounds!.goalRoom!);
    expect(oneCoreBounds({ loginsPerSecond: 10, hashMs: 50, busy: 0.8 })).not.toHaveProperty("goalRoom");
  });

  it("has no steady state on a saturated core, nor when the hashes alone exceed what the core did", () => {
    expect(oneCoreBounds({ loginsPerSecond: 10, hashMs: 30, busy: 1 })).toBeUndefined();
    expect(oneCoreBounds({ loginsPerSecond: 10, hashMs: 30, busy: 0.2 })).toBeUndefined();
    expect(oneCoreBounds({ loginsPerSecond: 10, hashMs: 0, busy: 0.5 })).toBeUndefined();
  });
});
