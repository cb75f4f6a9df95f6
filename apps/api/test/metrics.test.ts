/** GET /metrics: who may read it, HTTP counts by route pattern, login outcomes, database figures, Daraja calls. */
import { describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import { createMetrics } from "../src/http/metrics.js";
import { RestClient, registerUser, startTestApp, trpcClient, type TestApp } from "./support/app.js";
import { skipThisTarget } from "./support/database.js";
import { sample } from "./support/metrics.js";
import { enrolledUser, totpClock } from "./support/two-factor.js";

const metricsToken = "metrics-token-0123456789";

describe.skipIf(skipThisTarget)("GET /metrics", () => {
  let t: TestApp;
  const clock = totpClock();
  const scrape = async () => {
    const res = await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } });
    expect(res.status).toBe(200);
    return res.text();
  };

  it.beforeAll(async ({ launch }) => {
    t = await launch.app({ METRICS_TOKEN: metricsToken }, { now: clock.now });
  });

  describe("access", () => {
    it("asks for METRICS_TOKEN when it is set, and compares it exactly", async () => {
      const none = await fetch(`${t.url}/metrics`);
      expect(none.status).toBe(401);
      expect(none.headers.get("www-authenticate")).toMatch(/^Bearer/);
      const wrong = await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${metricsToken}x` } });
      expect(wrong.status).toBe(401);
      const right = await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } });
      expect(right.status).toBe(200);
      expect(right.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
      expect(await right.text()).toContain("process_cpu_seconds_total");
    });

    it("without a token, answers only direct loopback connections, not proxied ones", async () => {
      const open = await startTestApp();
      try {
        expect((await fetch(`${open.url}/metrics`)).status).toBe(200);
        expect((await fetch(`${open.url}/metrics`, { headers: { "x-forwarded-for": "203.0.113.9" } })).status).toBe(404);
        expect((await fetch(`${open.url}/metrics`, { headers: { forwarded: "for=203.0.113.9" } })).status).toBe(404);
      } finally {
        await open.close();
      }
    });
  });

  it("counts requests by route pattern and status, never by raw URL", async () => {
    const client = new RestClient(t.url);
    const user = await registerUser(client);
    const id = "0b9a4b0e-3c1f-4c55-9d4f-8e1f0c2d3a4b";
    const missing = await client.put(`/api/v1/addresses/${id}`, { label: "Home", recipient_name: "W", phone: "0712345678", street: "Moi Avenue", county: "nairobi" }, user.accessToken);
    expect(missing.status).toBe(404);
    await client.get("/no/such/path");
    await trpcClient(t.url, () => ({ authorization: `Bearer ${user.accessToken}`, "x-tenant-id": "default" })).profile.me.query();
    await fetch(`${t.url}/trpc/not.a.procedure,profile.me?batch=1`);

    const text = await scrape();
    expect(text).not.toContain(id);
    expect(text).not.toContain("/no/such/path");
    expect(text).not.toContain("not.a.procedure");
    expect(sample(text, "mteja_http_requests_total", { method: "PUT", route: "/api/v1/addresses/{id}", status: "404" })).toBe(1);
    expect(sample(text, "mteja_http_requests_total", { method: "POST", route: "/api/v1/auth/register", status: "201" })).toBeGreaterThanOrEqual(1);
    expect(sample(text, "mteja_http_requests_total", { method: "GET", route: "/trpc/profile.me", status: "200" })).toBe(1);
    expect(sample(text, "mteja_http_requests_total", { method: "GET", route: "(unmatched)", status: "404" })).toBeGreaterThanOrEqual(1);
    expect(sample(text, "mteja_http_requests_total", { route: "/trpc/(unknown)" })).toBe(1);
    expect(sample(text, "mteja_http_request_duration_seconds_count", { method: "PUT", route: "/api/v1/addresses/{id}", status: "404" })).toBe(1);
  });

  it("counts sign-ins by step and outcome, over REST and tRPC alike", async () => {
    const before = await scrape();
    const count = (text: string, step: string, outcome: string) => sample(text, "mteja_auth_logins_total", { step, outcome }) ?? 0;

    const client = new RestClient(t.url);
    const user = await registerUser(client);
    expect((await client.post("/api/v1/auth/login", { email: user.email, password: user.password })).status).toBe(200);
    expect((await client.post("/api/v1/auth/login", { email: user.email, password: "wrong password" })).status).toBe(401);
    const trpc = trpcClient(t.url, () => ({ "x-tenant-id": "default" }));
    await trpc.auth.login.mutate({ email: user.email, password: user.password });
    await expect(trpc.auth.login.mutate({ email: user.email, password: "wrong again" })).rejects.toThrow();
    expect((await client.post("/api/v1/auth/login", { email: user.email })).status).toBe(422);

    const enrolled = await enrolledUser(t.url, clock);
    const step1 = await enrolled.client.post("/api/v1/auth/login", { email: enrolled.email, password: enrolled.password });
    expect(step1.body.data.requires_otp).toBe(true);
    expect((await enrolled.client.post("/api/v1/auth/otp/validate", { otp_token: step1.body.data.otp_token, code: "000000" })).status).toBe(401);

    // The account limit: 10 failures per 15 minutes, then RATE_LIMITED whatever the password.
    const victim = await registerUser(client);
    for (let i = 0; i < 10; i++) await client.post("/api/v1/auth/login", { email: victim.email, password: `wrong ${i}` });
    expect((await client.post("/api/v1/auth/login", { email: victim.email, password: victim.password })).status).toBe(429);

    const after = await scrape();
    const delta = (step: string, outcome: string) => count(after, step, outcome) - count(before, step, outcome);
    expect(delta("password", "success")).toBe(2);
    expect(delta("password", "invalid_credentials")).toBe(12);
    expect(delta("password", "validation_error")).toBe(1);
    expect(delta("password", "requires_otp")).toBe(1);
    expect(delta("password", "rate_limited")).toBe(1);
    expect(delta("otp", "invalid_otp")).toBe(1);
  });

  it("reads payments by status and the mail backlog from the database on each scrape", async () => {
    const client = new RestClient(t.url);
    const user = await registerUser(client);
    const prisma = t.deps.db.unscoped("test");
    const payment = (status: string) => ({ tenantId: "default", userId: user.id, phone: "254712345678", amount: 10, reference: "ORDER", description: "Payment", status });
    await prisma.payment.createMany({ data: [payment("SUCCESS"), payment("SUCCESS"), payment("CANCELLED")] });
    const hourAgo = new Date(Date.now() - 3600_000);
    await prisma.mailOutbox.create({
      data: { tenantId: "default", kind: "test", toAddress: "x@example.com", fromName: "Shop", subject: "s", textBody: "t", htmlBody: "h", createdAt: hourAgo, nextAttemptAt: new Date(Date.now() + 86_400_000) },
    });

    let text = await scrape();
    expect(sample(text, "mteja_payments", { status: "SUCCESS" })).toBe(2);
    expect(sample(text, "mteja_payments", { status: "CANCELLED" })).toBe(1);
    expect(sample(text, "mteja_mail_outbox_backlog")).toBeGreaterThanOrEqual(1);
    expect(sample(text, "mteja_mail_outbox_oldest_unsent_seconds")).toBeGreaterThanOrEqual(3500);

    // A status that no longer has rows disappears instead of keeping its last value.
    await prisma.payment.updateMany({ where: { status: "CANCELLED", userId: user.id }, data: { status: "SUCCESS" } });
    text = await scrape();
    expect(sample(text, "mteja_payments", { status: "SUCCESS" })).toBe(3);
    expect(sample(text, "mteja_payments", { status: "CANCELLED" })).toBeUndefined();
  });
});

describe("Daraja call metrics", () => {
  it("times every call by operation and counts errors by kind", async () => {
    const metrics = createMetrics();
    const answers: Array<() => Promise<Response>> = [
      async () => new Response("{}", { status: 200 }),
      async () => new Response("{}", { status: 500 }),
      async () => {
        throw Object.assign(new Error("timed out"), { name: "TimeoutError" });
      },
      async () => {
        throw new TypeError("fetch failed");
      },
    ];
    const fake: typeof fetch = () => answers.shift()!();
    const darajaFetch = metrics.instrumentDarajaFetch(fake);
    await darajaFetch("https://sandbox.safaricom.co.ke/mpesa/stkpush/v1/processrequest", { method: "POST" });
    await darajaFetch(new URL("https://sandbox.safaricom.co.ke/mpesa/stkpushquery/v1/query"));
    await expect(darajaFetch("https://sandbox.safaricom.co.ke/mpesa/b2c/v3/paymentrequest")).rejects.toThrow("timed out");
    await expect(darajaFetch("https://sandbox.safaricom.co.ke/oauth/v1/generate?grant_type=client_credentials")).rejects.toThrow("fetch failed");

    const text = await metrics.registry.metrics();
    expect(sample(text, "mteja_daraja_request_duration_seconds_count", { operation: "stkpush", outcome: "ok" })).toBe(1);
    expect(sample(text, "mteja_daraja_errors_total", { operation: "stkquery", outcome: "http_error" })).toBe(1);
    expect(sample(text, "mteja_daraja_errors_total", { operation: "b2c", outcome: "timeout" })).toBe(1);
    expect(sample(text, "mteja_daraja_errors_total", { operation: "oauth", outcome: "network" })).toBe(1);
    expect(sample(text, "mteja_daraja_errors_total", { operation: "stkpush" })).toBeUndefined();
  });

  it("keeps each registry to itself (no global default registry)", async () => {
    const a = createMetrics();
    const b = createMetrics();
    a.observeDarajaCall("stkpush", "ok", 0.1);
    expect(sample(await a.registry.metrics(), "mteja_daraja_request_duration_seconds_count", { operation: "stkpush" })).toBe(1);
    expect(sample(await b.registry.metrics(), "mteja_daraja_request_duration_seconds_count", { operation: "stkpush" })).toBeUndefined();
  });
});
