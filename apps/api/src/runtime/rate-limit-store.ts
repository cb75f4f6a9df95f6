/**
 * Watches the Redis connection that shares the abuse-limit counters between instances. While Redis
 * is unreachable the limiter counts in this instance's memory (runtime/limiter.ts, insuranceLimiter),
 * which still protects but lets a client have the limits once per instance: the operator must see it.
 * So: one warning when the shared store is lost, one info line when it is back (never a line per
 * failed reconnect or command), and its state for /readyz and the mteja_rate_limit_store_shared gauge.
 * Handling ioredis's `error` events here also keeps its raw "[ioredis] Unhandled error event" lines
 * out of the output, which is JSON log lines only.
 */
import type { Logger } from "@mteja/domain";
import type { Redis } from "ioredis";

export type RateLimitStoreState = "connected" | "unavailable";

export interface RateLimitStore {
  state(): RateLimitStoreState;
}

/** Call before connecting, so that no event is missed. */
export function watchRateLimitStore(redis: Redis, logger: Logger): RateLimitStore {
  // "starting" until the first connection: a failure then stops the start, it is not an outage.
  let state: RateLimitStoreState | "starting" = "starting";

  const lost = (reason: string) => {
    if (state !== "connected") return;
    state = "unavailable";
    logger.warn({ redis: "unavailable", reason }, "Redis (shared abuse-limit counters) is unreachable: limits are counted per instance until it is back");
  };
  redis.on("error", (error: Error) => {
    if (state === "starting") return;
    lost(error.message);
    logger.debug({ redis: state, reason: error.message }, "Redis connection attempt failed");
  });
  redis.on("close", () => lost("connection closed"));
  redis.on("ready", () => {
    if (state === "unavailable") logger.info({ redis: "connected" }, "Redis is back: abuse limits are shared by every instance again");
    state = "connected";
  });

  return {
    state: () => (state === "connected" ? "connected" : "unavailable"),
  };
}
