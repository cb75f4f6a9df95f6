/**
 * Daraja call metrics wired as main.ts wires them: one registry made first, its instrumented fetch
 * given to the services (every Daraja client), the same registry given to the server's /metrics.
 */
import { randomBytes } from "node:crypto";
import { describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import { createMetrics } from "../src/http/metrics.js";
import { registerUser, RestClient, type TestApp } from "./support/app.js";
import { skipThisTarget } from "./support/database.js";
import { CONSUMER_KEY, CONSUMER_SECRET, PASSKEY, SHORTCODE, type Simulator } from "./support/simulator.js";
import { sample } from "./support/metrics.js";

describe.skipIf(skipThisTarget)("Daraja metrics in the running service", () => {
  let sim: Simulator;
  let t: TestApp;
  let url: string;

  it.beforeAll(async ({ launch }) => {
    sim = await launch.sim();
    t = await launch.app({
      MOMO_BASE_URL: sim.url,
      MOMO_CONSUMER_KEY: CONSUMER_KEY,
      MOMO_CONSUMER_SECRET: CONSUMER_SECRET,
      MOMO_SHORTCODE: SHORTCODE,
      MOMO_PASSKEY: PASSKEY,
      // Nobody listens there: the result callback is lost, which this test does not need.
      MOMO_CALLBACK_URL: "http://127.0.0.1:9/api/momo/callback/stkpush",
      MOMO_CALLBACK_SECRET: randomBytes(32).toString("hex"),
      MOMO_RECONCILE_INTERVAL_MS: "0",
      MOMO_TIMEOUT_MS: "2000",
    }, { metrics: createMetrics() });
    url = t.url;
  });

  it("times the OAuth and STK push calls an stkpush makes, by operation and outcome", async () => {
    const client = new RestClient(url);
    const user = await registerUser(client);
    const pushed = await client.post("/api/momo/stkpush", { phone: "0712345678", amount: 100 }, user.accessToken);
    expect(pushed.status).toBe(200);

    const text = await (await fetch(`${url}/metrics`)).text();
    expect(sample(text, "mteja_daraja_request_duration_seconds_count", { operation: "oauth", outcome: "ok" })).toBe(1);
    expect(sample(text, "mteja_daraja_request_duration_seconds_count", { operation: "stkpush", outcome: "ok" })).toBe(1);
    expect(sample(text, "mteja_daraja_errors_total")).toBeUndefined();
  });
});
