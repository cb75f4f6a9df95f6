/**
 * The abuse limits against evasion: spoofed X-Forwarded-For, several instances (counts shared in
 * Redis), and the client address taken only from proxies named in TRUST_PROXY.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import { registerUser, RestClient, startTestApp, uniqueEmail, type TestApp } from "./support/app.js";
import { skipThisTarget, target } from "./support/database.js";
import {
  dropRedisKeys,
  IpClient,
  redisKeys,
  redisUrl,
  skipRedis,
  startPeer,
  trpcMutation,
  uniqueIp,
  uniqueRedisPrefix,
  waitRetryAfter,
} from "./support/limits.js";

// The limits count in memory or in Redis, never in the database: run once, on the embedded one (CI time).
const skipHere = skipThisTarget || target !== "embedded";

const randomAddress = () => `${1 + (randomBytes(1)[0]! % 220)}.${randomBytes(1)[0]}.${randomBytes(1)[0]}.${randomBytes(1)[0]}`;

describe.skipIf(skipHere)("per-IP limits without a trusted proxy (TRUST_PROXY unset)", () => {
  describe("requests", () => {
    let t: TestApp;
    it.beforeAll(async ({ launch }) => {
      t = await launch.app({ RATE_LIMIT_RULES: "auth_requests_per_ip=6/60" });
    });

    it("a different X-Forwarded-For on every request does not escape the count of the socket's address", async () => {
      const spoofing = () => new IpClient(t.url, randomAddress());
      for (let i = 0; i < 6; i++) {
        const res = await spoofing().post("/api/v1/auth/forgot-password", { email: uniqueEmail() });
        expect(res.status).toBe(200);
      }
      const res = await spoofing().post("/api/v1/auth/forgot-password", { email: uniqueEmail() });
      expect(res.status).toBe(429);
      expect(res.headers.get("retry-after")).toMatch(/^\d+$/);
      const trpc = await trpcMutation(t.url, "auth.forgotPassword", { email: uniqueEmail() }, { "x-forwarded-for": randomAddress(), "x-real-ip": randomAddress() });
      expect(trpc.status).toBe(429);
    });
  });

  describe("failed logins", () => {
    let t: TestApp;
    it.beforeAll(async ({ launch }) => {
      t = await launch.app({ RATE_LIMIT_RULES: "login_failures_per_ip=3/60" });
    });

    it("a different X-Forwarded-For on every guess does not escape the failed-login count", async () => {
      const user = await registerUser(new RestClient(t.url));
      for (let i = 0; i < 3; i++) {
        const res = await new IpClient(t.url, randomAddress()).post("/api/v1/auth/login", { email: uniqueEmail("spray"), password: "password1" });
        expect(res.status).toBe(401);
      }
      const res = await new IpClient(t.url, randomAddress()).post("/api/v1/auth/login", { email: user.email, password: user.password });
      expect(res.status).toBe(429);
    });
  });
});

describe.skipIf(skipHere)("per-IP limits behind a trusted proxy (TRUST_PROXY=127.0.0.1)", () => {
  let t: TestApp;
  it.beforeAll(async ({ launch }) => {
    t = await launch.app({ TRUST_PROXY: "127.0.0.1", RATE_LIMIT_RULES: "auth_requests_per_ip=4/60" });
  });

  it("counts the address the trusted proxy saw; addresses the client prepends change nothing", async () => {
    const client = "10.200.0.7";
    for (let i = 0; i < 4; i++) {
      // The proxy appends what it saw (the rightmost entry); whatever the client sent comes before it.
      const res = await new IpClient(t.url, `${randomAddress()}, ${client}`).post("/api/v1/auth/forgot-password", { email: uniqueEmail() });
      expect(res.status).toBe(200);
    }
    expect((await new IpClient(t.url, `${randomAddress()}, ${client}`).post("/api/v1/auth/forgot-password", { email: uniqueEmail() })).status).toBe(429);
    expect((await new IpClient(t.url, client).post("/api/v1/auth/forgot-password", { email: uniqueEmail() })).status).toBe(429);
    // Another customer behind the same proxy has a count of their own.
    expect((await new IpClient(t.url, uniqueIp()).post("/api/v1/auth/forgot-password", { email: uniqueEmail() })).status).toBe(200);
  });

  it("counts IPv6 clients per /64, so hopping addresses inside one's own prefix does not escape", async () => {
    const forgot = (ip: string) => new IpClient(t.url, ip).post("/api/v1/auth/forgot-password", { email: uniqueEmail() });
    for (const ip of ["2001:db8:77:1::1", "2001:db8:77:1::2", "2001:db8:77:1::abcd:1", "2001:db8:77:1:ffff:ffff:ffff:fffe"]) {
      expect((await forgot(ip)).status).toBe(200);
    }
    expect((await forgot("2001:0db8:0077:0001:0:0:0:99")).status).toBe(429);
    expect((await forgot("2001:db8:77:2::1")).status).toBe(200);
  });
});

describe.skipIf(skipHere || skipRedis)("limits in Redis (REDIS_URL)", () => {
  const prefix = uniqueRedisPrefix();
  const env = {
    REDIS_URL: redisUrl,
    REDIS_KEY_PREFIX: prefix,
    TRUST_PROXY: "127.0.0.1",
    DATA_ENCRYPTION_KEY: randomBytes(32).toString("hex"),
    RATE_LIMIT_RULES: "login_failures_per_account=4/3,auth_requests_per_ip=6/3",
  };
  let a: TestApp;
  let b: Awaited<ReturnType<typeof startPeer>>;
  beforeAll(async () => {
    a = await startTestApp(env);
    b = await startPeer(a, env);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await dropRedisKeys(prefix);
  });

  it("two instances on one database share the failed-login count of an account, and it recovers", async () => {
    const user = await registerUser(new IpClient(a.url, uniqueIp()));
    const wrong = { email: user.email, password: "wrong password" };
    for (const url of [a.url, b.url, a.url, b.url]) {
      expect((await new IpClient(url, uniqueIp()).post("/api/v1/auth/login", wrong)).status).toBe(401);
    }
    const right = { email: user.email, password: user.password };
    const onB = await new IpClient(b.url, uniqueIp()).post("/api/v1/auth/login", right);
    expect(onB.status).toBe(429);
    expect(onB.body.error.code).toBe("RATE_LIMITED");
    expect(Number(onB.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    const onA = await trpcMutation(a.url, "auth.login", right, { "x-forwarded-for": uniqueIp() });
    expect(onA.status).toBe(429);
    expect(onA.headers.get("retry-after")).toMatch(/^\d+$/);

    // The count lives in Redis, under this run's prefix.
    const keys = await redisKeys(prefix);
    expect(keys).toContain(`${prefix}:limit:login_failures_per_account:default:${user.email}`);

    await waitRetryAfter(onB);
    expect((await new IpClient(a.url, uniqueIp()).post("/api/v1/auth/login", right)).status).toBe(200);
  });

  it("two instances share the per-IP request count", async () => {
    const ip = uniqueIp();
    for (const url of [a.url, b.url, a.url, b.url, a.url, b.url]) {
      expect((await new IpClient(url, ip).post("/api/v1/auth/forgot-password", { email: uniqueEmail() })).status).toBe(200);
    }
    const limited = await new IpClient(a.url, ip).post("/api/v1/auth/forgot-password", { email: uniqueEmail() });
    expect(limited.status).toBe(429);
    expect((await new IpClient(b.url, ip).post("/api/v1/auth/forgot-password", { email: uniqueEmail() })).status).toBe(429);
    await waitRetryAfter(limited);
    expect((await new IpClient(b.url, ip).post("/api/v1/auth/forgot-password", { email: uniqueEmail() })).status).toBe(200);
  });
});

// The session's address is stored in the database: this one runs on both.
describe.skipIf(skipThisTarget)("TRUST_PROXY=true: one trusted proxy", () => {
  let t: TestApp;
  it.beforeAll(async ({ launch }) => {
    t = await launch.app({ TRUST_PROXY: "true", RATE_LIMIT_RULES: "auth_requests_per_ip=3/60" });
  });

  it("the client is the rightmost X-Forwarded-For entry (what the proxy saw), not the leftmost (what the client wrote)", async () => {
    const client = new IpClient(t.url, "203.0.113.9, 198.51.100.7");
    const user = await registerUser(client);
    const sessions = await client.get("/api/v1/auth/sessions", user.accessToken);
    expect(sessions.status).toBe(200);
    expect(sessions.body.data.sessions.map((session: { ip: string | null }) => session.ip)).toEqual(["198.51.100.7"]);

    // Per-IP limits count that address whatever the client prepends.
    for (let i = 0; i < 2; i++) {
      expect((await new IpClient(t.url, `${randomAddress()}, 198.51.100.7`).post("/api/v1/auth/forgot-password", { email: uniqueEmail() })).status).toBe(200);
    }
    expect((await new IpClient(t.url, `${randomAddress()}, 198.51.100.7`).post("/api/v1/auth/forgot-password", { email: uniqueEmail() })).status).toBe(429);
    expect((await new IpClient(t.url, `203.0.113.9, ${uniqueIp()}`).post("/api/v1/auth/forgot-password", { email: uniqueEmail() })).status).toBe(200);
  });

  it("a hop count still skips that many proxies from the right (a list of proxies: TRUST_PROXY=127.0.0.1 above)", async ({ launch }) => {
    const twoHops = await launch.app({ TRUST_PROXY: "2" });
    const client = new IpClient(twoHops.url, "203.0.113.9, 198.51.100.7, 10.9.1.1");
    const user = await registerUser(client);
    expect((await client.get("/api/v1/auth/sessions", user.accessToken)).body.data.sessions[0].ip).toBe("198.51.100.7");
  });
});
