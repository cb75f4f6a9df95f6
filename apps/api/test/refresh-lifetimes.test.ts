/**
 * The refresh cookie's lifetimes are settings (docs/configuration.md#tokens-and-secrets): a value out
 * of range, or an idle lifetime longer than the absolute one, stops the start naming the setting; a
 * shortened lifetime ends sessions when it says, on the test's clock.
 */
import { describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import { registerUser, RestClient, type TestApp } from "./support/app.js";
import { testClock } from "./support/clock.js";
import { skipThisTarget } from "./support/database.js";

const clock = testClock();
const idle = 3600;
const absolute = 4 * 3600;
const grace = 2;
it.override({
  appEnv: {
    REFRESH_IDLE_SECONDS: String(idle),
    REFRESH_ABSOLUTE_SECONDS: String(absolute),
    REFRESH_REUSE_GRACE_SECONDS: String(grace),
  },
  appOptions: { now: clock.now },
});

const maxAgeOf = (attributes: string | undefined) => Number(/Max-Age=(\d+)/.exec(attributes ?? "")?.[1]);

describe("refresh lifetimes refused at start", () => {
  it.for([
    [{ REFRESH_IDLE_SECONDS: "59" }, "REFRESH_IDLE_SECONDS must be at least 60"],
    [{ REFRESH_IDLE_SECONDS: "a month" }, "REFRESH_IDLE_SECONDS must be a number of seconds"],
    [{ REFRESH_ABSOLUTE_SECONDS: "3600.5" }, "REFRESH_ABSOLUTE_SECONDS must be a whole number of seconds"],
    [{ REFRESH_ABSOLUTE_SECONDS: "31622401" }, "REFRESH_ABSOLUTE_SECONDS must be at most 31622400"],
    [{ REFRESH_REUSE_GRACE_SECONDS: "61" }, "REFRESH_REUSE_GRACE_SECONDS must be at most 60"],
    [
      { REFRESH_IDLE_SECONDS: "7200", REFRESH_ABSOLUTE_SECONDS: "3600" },
      "REFRESH_IDLE_SECONDS must be at most REFRESH_ABSOLUTE_SECONDS",
    ],
  ] as const)("%o", async ([env, message], { launch }) => {
    // The message names the setting twice: as the path and in its text.
    await expect(launch.app(env)).rejects.toThrow(`${Object.keys(env)[0]}: ${message}`);
  });
});

describe.skipIf(skipThisTarget)("shortened refresh lifetimes", () => {
  let t: TestApp;
  it.beforeAll(async ({ app }) => {
    t = app;
  });

  it("ends a session REFRESH_IDLE_SECONDS after its last refresh", async () => {
    const c = new RestClient(t.url);
    await registerUser(c);
    clock.advance(idle - 1);
    const kept = await c.post("/api/v1/auth/refresh");
    expect(kept.status).toBe(200);
    expect(maxAgeOf(kept.cookies.refresh_token?.attributes)).toBe(idle);
    clock.advance(idle + 1);
    const ended = await c.post("/api/v1/auth/refresh");
    expect(ended.status).toBe(401);
    expect(ended.body.error.code).toBe("INVALID_TOKEN");
  });

  it("ends a session REFRESH_ABSOLUTE_SECONDS after sign-in, refreshed or not, with its access tokens", async () => {
    const c = new RestClient(t.url);
    await registerUser(c);
    // Refreshed within every idle hour, until 600 s of the absolute lifetime remain.
    let last = await c.post("/api/v1/auth/refresh");
    for (let step = 0; step < 5; step++) {
      clock.advance((absolute - 600) / 5);
      last = await c.post("/api/v1/auth/refresh");
      expect(last.status).toBe(200);
    }
    expect(maxAgeOf(last.cookies.refresh_token?.attributes)).toBe(600);
    const accessToken = last.body.data.access_token as string;
    expect((await c.get("/api/v1/auth/me", accessToken)).status).toBe(200);
    // The access token has 300 s to live (ACCESS_TOKEN_TTL_SECONDS 900): its session is what ends.
    clock.advance(600);
    expect((await c.get("/api/v1/auth/me", accessToken)).body.error.code).toBe("INVALID_TOKEN");
    expect((await c.post("/api/v1/auth/refresh")).body.error.code).toBe("INVALID_TOKEN");
  });

  it("gives a replaced cookie its successor for REFRESH_REUSE_GRACE_SECONDS only, then ends the session", async () => {
    const c = new RestClient(t.url);
    await registerUser(c);
    const original = c.cookie!;
    const rotated = await c.post("/api/v1/auth/refresh");
    const successor = rotated.cookies.refresh_token!.value;
    const tab = new RestClient(t.url);
    tab.cookie = original;
    clock.advance(grace);
    const within = await tab.post("/api/v1/auth/refresh");
    expect(within.status).toBe(200);
    expect(within.cookies.refresh_token?.value).toBe(successor);
    const late = new RestClient(t.url);
    late.cookie = original;
    clock.advance(1);
    expect((await late.post("/api/v1/auth/refresh")).body.error.code).toBe("INVALID_TOKEN");
    expect((await c.post("/api/v1/auth/refresh")).body.error.code).toBe("INVALID_TOKEN");
  });
});
