/**
 * Structured logs: JSON lines from Fastify's pino logger at level trace, each line of a request
 * carrying its reqId (X-Request-Id honoured and echoed), and no secret in any line.
 */
import { randomBytes } from "node:crypto";
import { Writable } from "node:stream";
import { describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import { RestClient, trpcClient, uniqueEmail, type TestApp } from "./support/app.js";
import { testClock } from "./support/clock.js";
import { skipDatabaseAgnostic } from "./support/database.js";

type Line = Record<string, any>;

describe.skipIf(skipDatabaseAgnostic)("request logs", () => {
  const raw: string[] = [];
  const lines = () => raw.map((text) => JSON.parse(text) as Line);
  const clock = testClock();
  let t: TestApp;
  let url: string;

  it.beforeAll(async ({ launch }) => {
    const stream = new Writable({
      write(chunk, _encoding, callback) {
        raw.push(...String(chunk).split("\n").filter(Boolean));
        callback();
      },
    });
    t = await launch.app({ LOG_LEVEL: "trace", ADMIN_API_KEY: "" }, { now: clock.now, logStream: stream });
    url = t.url;
  });

  it("writes no password, token, cookie or authorization header in any line", async () => {
    const client = new RestClient(url);
    const email = uniqueEmail("logs");
    const password = `pw-${randomBytes(8).toString("hex")}`;
    const wrongPassword = `wrong-${randomBytes(8).toString("hex")}`;
    const secrets: string[] = [password, wrongPassword];

    const register = await client.post("/api/v1/auth/register", { name: "Akinyi Odhiambo", email, password });
    expect(register.status).toBe(201);
    secrets.push(register.body.data.access_token, register.cookies.refresh_token!.value);

    const login = await client.post("/api/v1/auth/login", { email, password });
    expect(login.status).toBe(200);
    secrets.push(login.body.data.access_token, login.cookies.refresh_token!.value);

    const refresh = await client.post("/api/v1/auth/refresh");
    expect(refresh.status).toBe(200);
    const accessToken = refresh.body.data.access_token as string;
    secrets.push(accessToken, refresh.cookies.refresh_token!.value);

    expect((await client.get("/api/v1/auth/me", accessToken)).status).toBe(200);
    expect((await client.post("/api/v1/auth/login", { email, password: wrongPassword })).status).toBe(401);
    expect((await client.put("/api/v1/auth/me/password", { current_password: password }, accessToken)).status).toBe(422);
    const trpc = trpcClient(url, () => ({ authorization: `Bearer ${accessToken}`, "x-tenant-id": "default" }));
    await trpc.auth.login.mutate({ email, password });
    await expect(trpc.auth.login.mutate({ email, password: wrongPassword })).rejects.toThrow();
    await fetch(`${url}/api/momo/callback/stkpush?token=callback-secret-123&x=1`, { method: "POST", body: "{}" });
    // Query parameters named like secrets are redacted from the URL of every request line.
    await fetch(`${url}/healthz?token=query-secret-456&x=1`);
    // A guest's token rides in the query of Google's redirect start (docs/sign-in.md).
    await fetch(`${url}/healthz?guest_token=guest-secret-789&x=1`);
    secrets.push("callback-secret-123", "query-secret-456", "guest-secret-789");

    // Secrets a future log call might pass in an object are redacted by name, a few levels deep.
    t.deps.logger.info(
      { password: "top-secret-1", body: { new_password: "top-secret-2", code: "135790", guest_token: "top-secret-6" }, request: { json: { Password: "top-secret-3", SecurityCredential: "top-secret-4" } }, consumerSecret: "top-secret-5" },
      "an object with secrets",
    );
    secrets.push("top-secret-1", "top-secret-2", "135790", "top-secret-3", "top-secret-4", "top-secret-5", "top-secret-6");

    expect(raw.length).toBeGreaterThan(20);
    for (const line of raw) {
      for (const secret of secrets) expect(line, "a secret reached the logs").not.toContain(secret);
      expect(line.toLowerCase()).not.toContain("bearer ");
    }
    expect(lines().some((l) => l.req?.url === "/healthz?token=%5Bredacted%5D&x=1")).toBe(true);
    expect(lines().some((l) => l.req?.url === "/healthz?guest_token=%5Bredacted%5D&x=1")).toBe(true);
    const redacted = lines().find((l) => l.msg === "an object with secrets")!;
    expect(redacted.password).toBe("[redacted]");
    expect(redacted.body.code).toBe("[redacted]");
  });

  it("keeps an error's code (what failed) as errorCode and still redacts a code that could be a one-time code", async () => {
    t.deps.logger.error({ err: Object.assign(new Error("listen failed"), { code: "EADDRINUSE" }) }, "an error with its code");
    t.deps.logger.error({ body: { code: "SECRET" } }, "codes that are not");
    const named = lines().find((l) => l.msg === "an error with its code")!;
    expect(named.err.errorCode).toBe("EADDRINUSE");
    const hidden = lines().find((l) => l.msg === "codes that are not")!;
    expect(hidden.body.code).toBe("[redacted]");
  });

  it("honours X-Request-Id, echoes it, and puts the request id on every line of the request", async () => {
    const before = raw.length;
    const res = await fetch(`${url}/api/v1/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-tenant-id": "default", "x-request-id": "checkout-42.a" },
      body: JSON.stringify({ email: "nobody@example.com", password: "whatever-password" }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get("x-request-id")).toBe("checkout-42.a");
    const mine = lines().slice(before).filter((l) => l.reqId === "checkout-42.a");
    expect(mine.map((l) => l.msg)).toEqual(expect.arrayContaining(["incoming request", "request completed"]));
    expect(mine.find((l) => l.msg === "request completed")?.res.statusCode).toBe(401);

    // An id that does not look like one is replaced, never copied into logs or headers.
    const odd = await fetch(`${url}/healthz`, { headers: { "x-request-id": "bad id\twith spaces" } });
    expect(odd.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);

    // Every line about a request has a reqId, and the lines are JSON with a level and a time.
    for (const line of lines()) {
      expect(typeof line.level).toBe("number");
      expect(typeof line.time).toBe("number");
      if (line.req || line.res) expect(line.reqId, JSON.stringify(line)).toEqual(expect.any(String));
    }
  });

  it("gives lines the domain writes while serving a request that request's id", async () => {
    const client = new RestClient(url);
    const email = uniqueEmail("reuse");
    await client.post("/api/v1/auth/register", { name: "Reuse Test", email, password: "correct horse battery" });
    const stale = client.cookie;
    await client.post("/api/v1/auth/refresh");
    clock.advance(60);
    // Presenting the rotated cookie after the grace window revokes the session (a domain warning).
    client.cookie = stale;
    const before = raw.length;
    const reuse = await client.request("POST", "/api/v1/auth/refresh", { headers: { "x-request-id": "reuse-1" } });
    expect(reuse.status).toBe(401);
    const warning = lines()
      .slice(before)
      .find((l) => /reuse/i.test(String(l.msg)));
    expect(warning).toBeDefined();
    expect(warning!.reqId).toBe("reuse-1");
    expect(raw.slice(before).join("\n")).not.toContain(stale!);
  });
});
