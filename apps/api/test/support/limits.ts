/**
 * Helpers for abuse-limit tests: clients that present a chosen client address (through a trusted
 * proxy's X-Forwarded-For), raw tRPC calls whose headers can be read, a second service instance on
 * the same database, and Redis when it is there.
 */
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { RestClient, startTestApp, type HttpResult, type TestApp } from "./app.js";

let counter = 0;
/** A client address no other test uses (10.x.y.z). */
export function uniqueIp(): string {
  counter += 1;
  const n = counter + (process.pid % 200) * 1000;
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
}

/** A RestClient whose requests say, through X-Forwarded-For, that they come from `ip`. */
export class IpClient extends RestClient {
  constructor(
    baseUrl: string,
    public forwardedFor: string,
    tenantId = "default",
  ) {
    super(baseUrl, tenantId);
  }

  override request<T = any>(
    method: string,
    path: string,
    options: { body?: unknown; token?: string; headers?: Record<string, string>; rawBody?: string } = {},
  ): Promise<HttpResult<T>> {
    return super.request<T>(method, path, { ...options, headers: { "x-forwarded-for": this.forwardedFor, ...(options.headers ?? {}) } });
  }
}

/** One non-batched tRPC mutation over plain fetch, so status and headers can be checked. */
export interface TrpcResult {
  status: number;
  headers: Headers;
  body: any;
  /** The error code (docs/errors.md), when the call failed. */
  code: string | undefined;
}

export async function trpcMutation(url: string, procedure: string, input: unknown, headers: Record<string, string> = {}): Promise<TrpcResult> {
  const response = await fetch(`${url}/trpc/${procedure}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-tenant-id": "default", ...headers },
    body: JSON.stringify(input),
  });
  const body = (await response.json()) as any;
  return { status: response.status, headers: response.headers, body, code: body?.error?.error?.code as string | undefined };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits out a 429's Retry-After (seconds), plus a little. */
export async function waitRetryAfter(result: { headers: Headers }): Promise<void> {
  const seconds = Number(result.headers.get("retry-after"));
  if (!Number.isFinite(seconds) || seconds <= 0) throw new Error("no Retry-After on the 429");
  await sleep(seconds * 1000 + 150);
}


/** A second instance of the service on the first one's database (same env, so the same keys). */
export function startPeer(t: TestApp, env: Record<string, string>): Promise<TestApp> {
  return startTestApp(env, { database: t.database });
}

export const redisUrl = process.env.MTEJA_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

/** True when the Redis tests must be skipped: Redis is absent and CI does not require it. */
export const skipRedis: boolean = await (async () => {
  const client = new Redis(redisUrl, { lazyConnect: true, connectTimeout: 1000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    await client.connect();
    await client.ping();
    return false;
  } catch {
    if (process.env.CI === "true") throw new Error(`Redis is required under CI=true but ${redisUrl} is not reachable`);
    console.warn(`Redis at ${redisUrl} is not reachable: skipping the Redis limit tests`);
    return true;
  } finally {
    client.disconnect();
  }
})();

/** A Redis key prefix of its own, so parallel test runs sharing one Redis never share a count. */
export function uniqueRedisPrefix(): string {
  return `mteja-test-${randomBytes(6).toString("hex")}`;
}

export async function redisKeys(prefix: string): Promise<string[]> {
  const client = new Redis(redisUrl);
  try {
    return await client.keys(`${prefix}:*`);
  } finally {
    client.disconnect();
  }
}

export async function dropRedisKeys(prefix: string): Promise<void> {
  const client = new Redis(redisUrl);
  try {
    const keys = await client.keys(`${prefix}:*`);
    if (keys.length) await client.del(...keys);
  } finally {
    client.disconnect();
  }
}
