import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RestClient, startTestApp, uniqueEmail, type TestApp } from "./support/app.js";
import { skipThisTarget } from "./support/database.js";

describe.skipIf(skipThisTarget)("smoke", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.close());

  it("registers, logs in, reads me", async () => {
    const c = new RestClient(t.url);
    const email = uniqueEmail();
    const reg = await c.post("/api/v1/auth/register", { name: "A B", email, password: "password123" });
    console.log(reg.status, JSON.stringify(reg.body), reg.cookies);
    const login = await c.post("/api/v1/auth/login", { email, password: "password123" });
    console.log(login.status, JSON.stringify(login.body));
    const me = await c.get("/api/v1/auth/me", login.body.data.access_token);
    console.log(me.status, JSON.stringify(me.body));
    const bad = await c.post("/api/v1/auth/login", { email });
    console.log(bad.status, JSON.stringify(bad.body));
    const r = await c.post("/api/v1/auth/refresh");
    console.log(r.status, JSON.stringify(r.body));
    expect(me.status).toBe(200);
  });
});
