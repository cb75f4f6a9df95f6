/**
 * The shared subscription cap's places in Redis (src/runtime/shared-stream-slots.ts): a live instance
 * keeps its places past their time to live; the places of an instance that stopped without giving them
 * back (a crash: nothing more reaches Redis from it) expire; without Redis, the instance counts alone.
 * Against the real Redis, with a time to live of a second.
 */
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { createStatusStreamSlots } from "@mteja/domain";
import { createSharedStreamSlots } from "../src/runtime/shared-stream-slots.js";
import { skipDatabaseAgnostic } from "./support/database.js";
import { dropRedisKeys, redisUrl, skipRedis, sleep, uniqueRedisPrefix } from "./support/limits.js";

const ttlMs = 1_000;

describe.skipIf(skipDatabaseAgnostic || skipRedis)("the subscription cap's places in Redis", () => {
  const prefix = uniqueRedisPrefix();
  const clients: Redis[] = [];
  afterAll(async () => {
    for (const client of clients) client.disconnect();
    await dropRedisKeys(prefix);
  });

  async function instance(limit = 2) {
    const redis = new Redis(redisUrl, { maxRetriesPerRequest: 0 });
    clients.push(redis);
    await new Promise((resolve) => redis.once("ready", resolve));
    const local = createStatusStreamSlots(limit);
    const slots = createSharedStreamSlots({ redis, keyPrefix: prefix, limit, ttlMs, local, onError: () => undefined });
    return { redis, slots };
  }

  it("keeps a live instance's places past their time to live, and gives them back on release", async () => {
    const [a, b] = [await instance(), await instance()];
    const held = [await a.slots.take("shop:keep"), await a.slots.take("shop:keep")];
    expect(held.every(Boolean)).toBe(true);
    await sleep(ttlMs * 2.5);
    expect(await b.slots.take("shop:keep")).toBeUndefined();
    held[0]!.release();
    await sleep(50);
    expect(await b.slots.take("shop:keep")).toBeDefined();
  });

  it("lets the places of a crashed instance expire", async () => {
    const [a, b] = [await instance(), await instance()];
    expect(await a.slots.take("shop:crash")).toBeDefined();
    const last = await a.slots.take("shop:crash");
    expect(last).toBeDefined();
    expect(await b.slots.take("shop:crash")).toBeUndefined();
    // The instance is gone: neither its renewals nor its releases reach Redis any more.
    a.redis.disconnect();
    last!.release();
    expect(await b.slots.take("shop:crash")).toBeUndefined();
    await sleep(ttlMs + 200);
    expect(await b.slots.take("shop:crash")).toBeDefined();
    expect(await b.slots.take("shop:crash")).toBeDefined();
    expect(await b.slots.take("shop:crash")).toBeUndefined();
  });

  it("counts in the instance's memory while Redis is unreachable", async () => {
    const { redis, slots } = await instance();
    redis.disconnect();
    expect(await slots.take("shop:alone")).toBeDefined();
    expect(await slots.take("shop:alone")).toBeDefined();
    expect(await slots.take("shop:alone")).toBeUndefined();
  });
});
