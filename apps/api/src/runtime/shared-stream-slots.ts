/**
 * The per-user cap on open payments.onStatus subscriptions, shared by every instance through Redis
 * (docs/deployment.md#shared-caps). Each open subscription holds one member of its user's sorted set,
 * scored with when it expires on Redis's own clock (so the instances' clocks never disagree). The
 * instance holding it pushes that time forward every third of STATUS_SUBSCRIPTION_TTL_SECONDS while the
 * subscription is open, and removes it when it ends: the places of an instance that crashed expire by
 * themselves. While Redis is unreachable the places are counted in this instance's memory instead, as
 * the abuse limits are (runtime/limiter.ts): a user then has the cap once per instance.
 */
import type { StatusStreamSlot, StatusStreamSlots } from "@mteja/domain";
import type { Redis } from "ioredis";
import { randomUUID } from "node:crypto";

/** Redis's clock in milliseconds (TIME is allowed before writes: scripts replicate their effects). */
const redisNowMs = `
  redis.replicate_commands()
  local time = redis.call('TIME')
  local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)`;

/** KEYS[1] the user's places; ARGV: the cap, the time to live (ms), the new member. 1 when taken. */
const takeScript = `${redisNowMs}
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
  if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1`;

/** KEYS[1] the user's places; ARGV: the time to live (ms), the member, which counts again if it was lost. */
const keepScript = `${redisNowMs}
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), ARGV[2])
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  return 1`;

export interface SharedStreamSlotsOptions {
  redis: Redis;
  /** REDIS_KEY_PREFIX. */
  keyPrefix: string;
  /** Open subscriptions per user at most. */
  limit: number;
  /** How long a place outlives the last sign of life of the instance holding it (STATUS_SUBSCRIPTION_TTL_SECONDS). */
  ttlMs: number;
  /** Counts while Redis is unreachable. */
  local: StatusStreamSlots;
  /** A failed Redis command: logged by the caller, never thrown at a subscriber. */
  onError(error: unknown): void;
}

export function createSharedStreamSlots(options: SharedStreamSlotsOptions): StatusStreamSlots {
  const { redis, limit, ttlMs } = options;
  /** The places this instance holds in Redis: member → key. */
  const held = new Map<string, string>();
  let keeper: NodeJS.Timeout | undefined;

  function keepAll(): void {
    const pipeline = redis.pipeline();
    for (const [member, key] of held) pipeline.eval(keepScript, 1, key, ttlMs, member);
    pipeline.exec().catch(options.onError);
  }

  function hold(key: string, member: string): StatusStreamSlot {
    held.set(member, key);
    if (!keeper) {
      keeper = setInterval(keepAll, Math.max(1, Math.floor(ttlMs / 3)));
      keeper.unref();
    }
    return {
      release() {
        if (!held.delete(member)) return;
        if (held.size === 0) {
          clearInterval(keeper);
          keeper = undefined;
        }
        // Unreachable: the place expires by itself.
        if (redis.status === "ready") redis.zrem(key, member).catch(options.onError);
      },
    };
  }

  return {
    async take(userKey) {
      if (redis.status !== "ready") return options.local.take(userKey);
      const key = `${options.keyPrefix}:status-streams:${userKey}`;
      const member = randomUUID();
      try {
        const taken = await redis.eval(takeScript, 1, key, limit, ttlMs, member);
        return taken === 1 ? hold(key, member) : undefined;
      } catch (error) {
        options.onError(error);
        return options.local.take(userKey);
      }
    },
  };
}
