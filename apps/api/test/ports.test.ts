/** Time and chance come from the injected Clock and Random ports (Deps.clock, Deps.random), so a test can drive them. */
import { cryptoRandom, type Random } from "@mteja/domain";
import { describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import { registerUser, RestClient, type TestApp } from "./support/app.js";
import { testClock } from "./support/clock.js";
import { skipDatabaseAgnostic } from "./support/database.js";

/** node:crypto's answers, each one recorded, so the test can recognise where a value came from. */
function recordingRandom() {
  const bytes: string[] = [];
  const uuids: string[] = [];
  const random: Random = {
    bytes(n) {
      const value = cryptoRandom.bytes(n);
      bytes.push(value.toString("base64url"));
      return value;
    },
    uuid() {
      const value = cryptoRandom.uuid();
      uuids.push(value);
      return value;
    },
    int: (max) => cryptoRandom.int(max),
  };
  return { random, bytes, uuids };
}

function jwtClaims(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString("utf8"));
}

const clock = testClock(Date.parse("2031-01-01T00:00:00.000Z"));
const recorded = recordingRandom();
it.override({ appOptions: { now: clock.now, random: recorded.random } });

describe.skipIf(skipDatabaseAgnostic)("the Clock and Random ports", () => {
  let t: TestApp;
  it.beforeAll(async ({ app }) => {
    t = app;
  });

  it("makes the refresh token and the access token's id from the Random port, and dates from the Clock", async () => {
    const c = new RestClient(t.url);
    const user = await registerUser(c);
    const login = await c.post("/api/v1/auth/login", { email: user.email, password: user.password });
    expect(login.status).toBe(200);
    expect(recorded.bytes).toContain(login.cookies.refresh_token!.value);
    const claims = jwtClaims(login.body.data.access_token);
    expect(recorded.uuids).toContain(claims.jti);
    expect(claims.iat).toBe(Date.parse("2031-01-01T00:00:00.000Z") / 1000);
  });

  it("seals stored secrets with IVs from the Random port", async () => {
    const before = recorded.bytes.length;
    const sealed = t.deps.cipher.encrypt("secret");
    expect(recorded.bytes.length).toBe(before + 1);
    expect(sealed.split(".")[1]).toBe(recorded.bytes.at(-1));
  });
});
