import { describe, expect, it } from "vitest";
import { defaultWebhookRetrySchedule, retryDelaySeconds } from "../../src/webhooks/retry-schedule.js";

describe("webhook retry schedule", () => {
  it("retries after about 30 s, 2 min, 10 min, 1 h, then hourly, for 3 days", () => {
    expect(defaultWebhookRetrySchedule.slice(0, 5)).toEqual([30, 120, 600, 3600, 3600]);
    const total = defaultWebhookRetrySchedule.reduce((sum, delay) => sum + delay, 0);
    expect(total).toBeGreaterThanOrEqual(72 * 3600);
    expect(total).toBeLessThan(73 * 3600);
  });

  it("answers the delay after the n-th failure, and nothing once the schedule is used up", () => {
    expect(retryDelaySeconds([0, 5, 9], 1)).toBe(0);
    expect(retryDelaySeconds([0, 5, 9], 3)).toBe(9);
    expect(retryDelaySeconds([0, 5, 9], 4)).toBeUndefined();
  });
});
