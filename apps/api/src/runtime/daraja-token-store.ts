/**
 * The Daraja access tokens shared by every instance through Redis (docs/deployment.md#daraja-tokens).
 * Daraja invalidates an app's previous token whenever it issues one, so instances keeping their own
 * would refuse each other's (404.001.03). One key per app, named by a hash of its base URL and consumer
 * key, holds the token until a little before it expires; a second key is the lock one instance takes
 * (SET NX PX) while it asks Daraja for a new one. A token and a lock are removed only by a script that
 * checks they are still the ones meant: an instance whose token was refused never removes the fresh one
 * another instance shared since. While Redis is unreachable every call fails at once and the Daraja
 * client keeps its token in its own memory (packages/daraja/src/oauth.ts): a payment never waits on it.
 */
import type { AccessTokenStore } from "@mteja/daraja";
import type { Redis } from "ioredis";
import { randomUUID } from "node:crypto";

/** KEYS[1]; ARGV[1] the value it must still hold. 1 when removed. */
const compareAndDelete = `
  if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
  return 0`;

export interface RedisAccessTokenStoreOptions {
  redis: Redis;
  /** REDIS_KEY_PREFIX. */
  keyPrefix: string;
}

export function createRedisAccessTokenStore(options: RedisAccessTokenStoreOptions): AccessTokenStore {
  const { redis } = options;
  const tokenKey = (account: string) => `${options.keyPrefix}:daraja-token:${account}`;
  const lockKey = (account: string) => `${options.keyPrefix}:daraja-token-lock:${account}`;
  // ioredis would queue the command until Redis is back: the payment must not wait for that.
  const ready = () => {
    if (redis.status !== "ready") throw new Error(`Redis is unreachable (${redis.status})`);
  };

  return {
    async read(account) {
      ready();
      return redis.get(tokenKey(account));
    },
    async write(account, token, ttlMs) {
      ready();
      await redis.set(tokenKey(account), token, "PX", Math.max(1, Math.floor(ttlMs)));
    },
    async discard(account, token) {
      ready();
      await redis.eval(compareAndDelete, 1, tokenKey(account), token);
    },
    async lock(account, ttlMs) {
      ready();
      const key = lockKey(account);
      const owner = randomUUID();
      const taken = await redis.set(key, owner, "PX", Math.max(1, Math.floor(ttlMs)), "NX");
      if (taken !== "OK") return null;
      // Only this instance's lock: after ttlMs another may hold it.
      return async () => {
        await redis.eval(compareAndDelete, 1, key, owner);
      };
    },
  };
}
