/**
 * Step-up through HTTP, REST and tRPC, on both databases (docs/step-up.md): a session is fresh for
 * STEP_UP_WINDOW_SECONDS (shortened here to 60) after register or a sign-in, whatever the method; a
 * refresh never extends it; reauthenticate does, with the account's current factors. On a session
 * that is not fresh, sensitive operations answer 403 STEP_UP_REQUIRED unless the body carries their
 * complete proof; me/phone/* only for a phone other than the verified one.
 */
import { TRPCClientError } from "@trpc/client";
import { describe, expect } from "vitest";
import type { SmsSimulator } from "@mteja/sms-sim";
import { it } from "./support/fixture.js";
import { RestClient, registerUser, trpcClient, type HttpResult, type TestApp } from "./support/app.js";
import { skipDatabaseAgnostic, skipThisTarget } from "./support/database.js";
import { totpClock, step } from "./support/two-factor.js";
import { totpAt, wrongCodeAt } from "./support/totp.js";
import { codeTexted, textsTo, uniquePhone } from "./support/sms.js";

const window = 60;

const clock = totpClock();
it.override({
  // STEP_UP_WINDOW_SECONDS is one of the settings tests may shorten; the account's sign-in limit is
  // lowered to see reauthenticate count toward it.
  appEnv: { STEP_UP_WINDOW_SECONDS: String(window), RATE_LIMIT_RULES: "login_failures_per_account=4/900" },
  appOptions: { now: clock.now },
});

describe.skipIf(skipThisTarget)("step-up: fresh sessions, reauthenticate, body proofs", () => {
  let t: TestApp;
  let sim: SmsSimulator;

  it.beforeAll(({ smsApp }) => {
    ({ app: t, sim } = smsApp);
  });

  const stale = () => clock.advance(window + 1);

  function expectStepUpRequired(answer: HttpResult): void {
    expect([answer.status, answer.body?.error?.code]).toEqual([403, "STEP_UP_REQUIRED"]);
  }

  async function textedCode(phone: ReturnType<typeof uniquePhone>, send: () => Promise<HttpResult>): Promise<string> {
    const before = textsTo(sim, phone.international).length;
    const sent = await send();
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    return codeTexted(sim, phone.international, before + 1);
  }

  async function withVerifiedPhone(client: RestClient, token: string): Promise<ReturnType<typeof uniquePhone>> {
    const phone = uniquePhone();
    const code = await textedCode(phone, () => client.post("/api/v1/auth/me/phone/start", { phone: phone.local }, token));
    expect((await client.post("/api/v1/auth/me/phone/verify", { code }, token)).status).toBe(200);
    return phone;
  }

  async function enableTwoFactor(client: RestClient, token: string): Promise<{ secret: string; recoveryCodes: string[] }> {
    const setup = await client.post("/api/v1/auth/otp/setup", undefined, token);
    expect(setup.status).toBe(200);
    const verify = await client.post("/api/v1/auth/otp/verify", { code: totpAt(setup.body.data.secret, clock.now()) }, token);
    expect(verify.status).toBe(200);
    clock.advance(step);
    return { secret: setup.body.data.secret, recoveryCodes: verify.body.data.recovery_codes };
  }

  async function freshUntilOf(sessionOwner: string): Promise<Date | null> {
    const session = await t.deps.db.unscoped("test").session.findFirstOrThrow({ where: { userId: sessionOwner, revokedAt: null }, orderBy: { createdAt: "desc" } });
    return session.freshUntil;
  }

  it("register and a password sign-in start fresh for STEP_UP_WINDOW_SECONDS; a refresh does not extend it", async () => {
    const client = new RestClient(t.url);
    const user = await registerUser(client);
    expect((await freshUntilOf(user.id))?.getTime()).toBe(clock.now().getTime() + window * 1000);
    expect((await client.get("/api/v1/auth/me/export", user.accessToken)).status).toBe(200);

    clock.advance(window - 10);
    const refreshed = await client.post("/api/v1/auth/refresh");
    expect(refreshed.status).toBe(200);
    expect((await client.get("/api/v1/auth/me/export", refreshed.body.data.access_token)).status).toBe(200);
    clock.advance(11);
    // Still the same session, refreshed or not: past its fresh_until.
    expectStepUpRequired(await client.get("/api/v1/auth/me/export", refreshed.body.data.access_token));
    expect((await client.post("/api/v1/auth/refresh")).status).toBe(200);
    expectStepUpRequired(await client.get("/api/v1/auth/me/export", user.accessToken));
    // Operations that are not sensitive go on as before.
    expect((await client.get("/api/v1/auth/me", user.accessToken)).status).toBe(200);
    expect((await client.get("/api/v1/auth/sessions", user.accessToken)).status).toBe(200);

    const signedIn = new RestClient(t.url);
    const login = await signedIn.post("/api/v1/auth/login", { email: user.email, password: user.password });
    expect(login.status).toBe(200);
    expect((await signedIn.get("/api/v1/auth/me/export", login.body.data.access_token)).status).toBe(200);
    // The older session is still not fresh: freshness belongs to a session, not to the account.
    expectStepUpRequired(await client.get("/api/v1/auth/me/export", user.accessToken));
  });

  it("an SMS sign-in and a two-factor sign-in start fresh too", async () => {
    const phone = uniquePhone();
    const client = new RestClient(t.url);
    const code = await textedCode(phone, () => client.post("/api/v1/auth/phone/start", { phone: phone.local }));
    const signedUp = await client.post("/api/v1/auth/phone/verify", { phone: phone.local, code });
    const token = signedUp.body.data.access_token as string;
    const { secret } = await enableTwoFactor(client, token);
    stale();
    expectStepUpRequired(await client.get("/api/v1/auth/me/export", token));

    const again = new RestClient(t.url);
    const smsCode = await textedCode(phone, () => again.post("/api/v1/auth/phone/start", { phone: phone.local }));
    const first = await again.post("/api/v1/auth/phone/verify", { phone: phone.local, code: smsCode });
    expect(first.body.data.requires_otp).toBe(true);
    const validated = await again.post("/api/v1/auth/otp/validate", { otp_token: first.body.data.otp_token, code: totpAt(secret, clock.now()) });
    expect(validated.status).toBe(200);
    expect((await again.get("/api/v1/auth/me/export", validated.body.data.access_token)).status).toBe(200);
  });

  it("reauthenticate { password } makes the session fresh again and records the event; a wrong one is 401 and counts toward the account's limit", async () => {
    const client = new RestClient(t.url);
    const user = await registerUser(client);
    stale();
    expectStepUpRequired(await client.get("/api/v1/auth/me/export", user.accessToken));

    const wrong = await client.post("/api/v1/auth/reauthenticate", { password: "not my password" }, user.accessToken);
    expect([wrong.status, wrong.body.error.code]).toEqual([401, "INVALID_CREDENTIALS"]);
    const neither = await client.post("/api/v1/auth/reauthenticate", {}, user.accessToken);
    expect([neither.status, neither.body.error.details[0].path]).toEqual([422, "password"]);

    const done = await client.post("/api/v1/auth/reauthenticate", { password: user.password }, user.accessToken);
    expect(done.status).toBe(200);
    expect(done.body.data).toEqual({ fresh_until: new Date(clock.now().getTime() + window * 1000).toISOString() });
    expect((await client.get("/api/v1/auth/me/export", user.accessToken)).status).toBe(200);
    const events = await client.get("/api/v1/auth/me/security-events", user.accessToken);
    const reauthenticated = events.body.data.security_events.find((event: { type: string }) => event.type === "reauthenticated");
    expect(reauthenticated.details).toMatchObject({ method: "password" });
    stale();
    expectStepUpRequired(await client.get("/api/v1/auth/me/export", user.accessToken));

    // 4 failures per account here (RATE_LIMIT_RULES): the wrong password above was the first.
    for (let i = 0; i < 3; i++) expect((await client.post("/api/v1/auth/reauthenticate", { password: "still not it" }, user.accessToken)).status).toBe(401);
    const limited = await client.post("/api/v1/auth/reauthenticate", { password: user.password }, user.accessToken);
    expect([limited.status, limited.body.error.code]).toEqual([429, "RATE_LIMITED"]);
  });

  it("a stranger's wrong logins with the account's email do not block the owner's proofs: a signed-in proof counts per user", async () => {
    const client = new RestClient(t.url);
    const user = await registerUser(client);
    const phone = await withVerifiedPhone(client, user.accessToken);
    stale();
    // 4 failures per account here (RATE_LIMIT_RULES): the stranger locks /login for this email…
    for (let i = 0; i < 4; i++) expect((await client.post("/api/v1/auth/login", { email: user.email, password: "guessing" })).status).toBe(401);
    const locked = await client.post("/api/v1/auth/login", { email: user.email, password: user.password });
    expect([locked.status, locked.body.error.code]).toEqual([429, "RATE_LIMITED"]);
    // …but the owner, signed in, still proves themselves by password or by a text.
    expect((await client.post("/api/v1/auth/reauthenticate", { password: user.password }, user.accessToken)).status).toBe(200);
    stale();
    const code = await textedCode(phone, () => client.post("/api/v1/auth/reauthenticate/sms", undefined, user.accessToken));
    expect((await client.post("/api/v1/auth/reauthenticate", { sms_code: code }, user.accessToken)).status).toBe(200);
    stale();
    const changed = await client.put("/api/v1/auth/me/password", { current_password: user.password, new_password: "a brand new passphrase 7" }, user.accessToken);
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
  });

  it("with two-factor on, reauthenticate needs the code as well: missing 422, wrong 401 INVALID_OTP, a TOTP or recovery code 200", async () => {
    const client = new RestClient(t.url);
    const user = await registerUser(client);
    const { secret, recoveryCodes } = await enableTwoFactor(client, user.accessToken);
    stale();
    const noCode = await client.post("/api/v1/auth/reauthenticate", { password: user.password }, user.accessToken);
    expect([noCode.status, noCode.body.error.details[0].path]).toEqual([422, "code"]);
    const wrongCode = await client.post("/api/v1/auth/reauthenticate", { password: user.password, code: wrongCodeAt(secret, clock.now()) }, user.accessToken);
    expect([wrongCode.status, wrongCode.body.error.code]).toEqual([401, "INVALID_OTP"]);
    const wrongPassword = await client.post("/api/v1/auth/reauthenticate", { password: "nope nope nope", code: totpAt(secret, clock.now()) }, user.accessToken);
    expect([wrongPassword.status, wrongPassword.body.error.code]).toEqual([401, "INVALID_CREDENTIALS"]);
    expect((await client.post("/api/v1/auth/reauthenticate", { password: user.password, code: totpAt(secret, clock.now()) }, user.accessToken)).status).toBe(200);
    stale();
    expect((await client.post("/api/v1/auth/reauthenticate", { password: user.password, code: recoveryCodes[0] }, user.accessToken)).status).toBe(200);
    expect((await client.post("/api/v1/auth/otp/setup", undefined, user.accessToken)).body.error.code).toBe("OTP_ALREADY_ENABLED");
  });

  it("reauthenticate/sms texts the verified phone; { sms_code } reauthenticates; no verified phone is 409 NO_VERIFIED_PHONE", async () => {
    const client = new RestClient(t.url);
    const user = await registerUser(client);
    const none = await client.post("/api/v1/auth/reauthenticate/sms", undefined, user.accessToken);
    expect([none.status, none.body.error.code]).toEqual([409, "NO_VERIFIED_PHONE"]);
    const phone = await withVerifiedPhone(client, user.accessToken);
    stale();

    const code = await textedCode(phone, () => client.post("/api/v1/auth/reauthenticate/sms", undefined, user.accessToken));
    const wrong = await client.post("/api/v1/auth/reauthenticate", { sms_code: code === "000000" ? "111111" : "000000" }, user.accessToken);
    expect([wrong.status, wrong.body.error.code]).toEqual([401, "INVALID_OTP"]);
    const both = await client.post("/api/v1/auth/reauthenticate", { sms_code: code, password: user.password }, user.accessToken);
    expect(both.status).toBe(422);
    expect((await client.post("/api/v1/auth/reauthenticate", { sms_code: code }, user.accessToken)).status).toBe(200);
    expect((await client.get("/api/v1/auth/me/export", user.accessToken)).status).toBe(200);
    // Single use.
    expect((await client.post("/api/v1/auth/reauthenticate", { sms_code: code }, user.accessToken)).status).toBe(401);
  });

  it("a complete body proof stands in for freshness: the password (and the code with two-factor on), checked before the change", async () => {
    const client = new RestClient(t.url);
    const user = await registerUser(client);
    stale();
    // Two-factor off: the current password is the whole proof.
    const changed = await client.put("/api/v1/auth/me/password", { current_password: user.password, new_password: "a second passphrase" }, user.accessToken);
    expect(changed.status).toBe(200);
    const wrong = await client.put("/api/v1/auth/me/password", { current_password: "not it at all", new_password: "a third passphrase" }, user.accessToken);
    expect([wrong.status, wrong.body.error.code]).toEqual([401, "INVALID_CREDENTIALS"]);
    // Without it, the operation asks for a fresh session, not for the field.
    expectStepUpRequired(await client.put("/api/v1/auth/me/password", { new_password: "a third passphrase" }, user.accessToken));

    const { secret } = await (async () => {
      expect((await client.post("/api/v1/auth/reauthenticate", { password: "a second passphrase" }, user.accessToken)).status).toBe(200);
      return enableTwoFactor(client, user.accessToken);
    })();
    stale();
    // Two-factor on: the password alone is not a complete proof.
    expectStepUpRequired(await client.put("/api/v1/auth/me/password", { current_password: "a second passphrase", new_password: "a third passphrase" }, user.accessToken));
    expectStepUpRequired(await client.request("DELETE", "/api/v1/auth/otp/disable", { body: { password: "a second passphrase" }, token: user.accessToken }));
    const wrongCode = await client.put(
      "/api/v1/auth/me/password",
      { current_password: "a second passphrase", code: wrongCodeAt(secret, clock.now()), new_password: "a third passphrase" },
      user.accessToken,
    );
    expect([wrongCode.status, wrongCode.body.error.code]).toEqual([401, "INVALID_OTP"]);
    const withCode = await client.put(
      "/api/v1/auth/me/password",
      { current_password: "a second passphrase", code: totpAt(secret, clock.now()), new_password: "a third passphrase" },
      user.accessToken,
    );
    expect(withCode.status).toBe(200);
    clock.advance(step);
    const disabled = await client.request("DELETE", "/api/v1/auth/otp/disable", { body: { password: "a third passphrase", code: totpAt(secret, clock.now()) }, token: user.accessToken });
    expect(disabled.status).toBe(200);
    // Erasure takes its proof as it always did: complete, it needs no fresh session either.
    expectStepUpRequired(await client.request("DELETE", "/api/v1/auth/me", { body: {}, token: user.accessToken }));
    expect((await client.request("DELETE", "/api/v1/auth/me", { body: { password: "a third passphrase" }, token: user.accessToken })).status).toBe(200);
  });

  it("otp/setup and otp/verify always need a fresh session: no code is a proof there", async () => {
    const client = new RestClient(t.url);
    const user = await registerUser(client);
    const setup = await client.post("/api/v1/auth/otp/setup", undefined, user.accessToken);
    expect(setup.status).toBe(200);
    stale();
    expectStepUpRequired(await client.post("/api/v1/auth/otp/verify", { code: totpAt(setup.body.data.secret, clock.now()) }, user.accessToken));
    expectStepUpRequired(await client.post("/api/v1/auth/otp/setup", undefined, user.accessToken));
    expect((await client.post("/api/v1/auth/reauthenticate", { password: user.password }, user.accessToken)).status).toBe(200);
    expect((await client.post("/api/v1/auth/otp/verify", { code: totpAt(setup.body.data.secret, clock.now()) }, user.accessToken)).status).toBe(200);
  });

  it("me/phone/start and me/phone/verify need no fresh session for the verified phone (the phone-only account's proof), and one for any other", async () => {
    const phone = uniquePhone();
    const client = new RestClient(t.url);
    const code = await textedCode(phone, () => client.post("/api/v1/auth/phone/start", { phone: phone.local }));
    const token = (await client.post("/api/v1/auth/phone/verify", { phone: phone.local, code })).body.data.access_token as string;
    stale();

    // Its verified phone, named or by default: a code to it, which confirms a change (here: its first password).
    const own = await textedCode(phone, () => client.post("/api/v1/auth/me/phone/start", { phone: phone.local }, token));
    expect((await client.post("/api/v1/auth/me/phone/verify", { code: own }, token)).status).toBe(200);
    const proof = await textedCode(phone, () => client.post("/api/v1/auth/me/phone/start", {}, token));
    expect((await client.put("/api/v1/auth/me/password", { sms_code: proof, new_password: "a first passphrase" }, token)).status).toBe(200);

    const other = uniquePhone();
    expectStepUpRequired(await client.post("/api/v1/auth/me/phone/start", { phone: other.local }, token));
    // Unreadable input cannot be shown to be the verified phone.
    expectStepUpRequired(await client.post("/api/v1/auth/me/phone/start", { phone: "not a phone" }, token));
    expect((await client.post("/api/v1/auth/reauthenticate", { password: "a first passphrase" }, token)).status).toBe(200);
    const otherCode = await textedCode(other, () => client.post("/api/v1/auth/me/phone/start", { phone: other.local }, token));
    expect((await client.post("/api/v1/auth/me/phone/verify", { code: otherCode }, token)).body.data).toEqual({ phone: other.stored, phone_verified: true });
  });

  it("answers alike over tRPC: 403 STEP_UP_REQUIRED, then auth.reauthenticate", async () => {
    const client = new RestClient(t.url);
    const user = await registerUser(client);
    stale();
    const trpc = trpcClient(t.url, () => ({ "x-tenant-id": "default", authorization: `Bearer ${user.accessToken}` }));
    const refused = await trpc.dataRights.exportMyData.query().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(TRPCClientError);
    expect((refused as TRPCClientError<any>).shape.error.code).toBe("STEP_UP_REQUIRED");
    expect((refused as TRPCClientError<any>).data.httpStatus).toBe(403);
    const body = await trpc.profile.changePassword.mutate({ new_password: "whatever it is" }).catch((error: unknown) => error);
    expect((body as TRPCClientError<any>).shape.error.code).toBe("STEP_UP_REQUIRED");

    const again = await trpc.auth.reauthenticate.mutate({ password: user.password });
    expect(again.data.fresh_until).toBe(new Date(clock.now().getTime() + window * 1000).toISOString());
    expect((await trpc.dataRights.exportMyData.query()).data.profile.id).toBe(user.id);
    const sms = await trpc.auth.reauthenticateSms.mutate().catch((error: unknown) => error);
    expect((sms as TRPCClientError<any>).shape.error.code).toBe("NO_VERIFIED_PHONE");
  });

  it("says it in the user's language", async () => {
    const client = new RestClient(t.url);
    const user = await registerUser(client);
    expect((await client.put("/api/v1/auth/me", { preferences: { locale: "sw" } }, user.accessToken)).status).toBe(200);
    stale();
    const refused = await client.get("/api/v1/auth/me/export", user.accessToken);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/^Tafadhali thibitisha kwamba ni wewe/);
  });
});

describe.skipIf(skipDatabaseAgnostic)("step-up in the OpenAPI document", () => {
  it("shows 403 STEP_UP_REQUIRED and x-step-up on each sensitive operation, and on no other", async ({ app }) => {
    const doc = (await new RestClient(app.url).get("/openapi.json")).body;
    const stepUp: Record<string, unknown> = {};
    for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, operation] of Object.entries<any>(item)) {
        const codes = Object.keys(operation.responses?.["403"]?.content?.["application/json"]?.examples ?? {});
        if (codes.includes("STEP_UP_REQUIRED") || operation["x-step-up"]) stepUp[`${method.toUpperCase()} ${path}`] = operation["x-step-up"];
        if (operation["x-step-up"]) {
          expect(codes).toContain("STEP_UP_REQUIRED");
          expect(operation.description).toContain("STEP_UP_REQUIRED");
        }
      }
    }
    const bodyProof = (password: string) => ({ fresh_session: "always", body_proof: { password, without_password: "sms_code", with_two_factor: "code" } });
    expect(stepUp).toEqual({
      "PUT /api/v1/auth/me/password": bodyProof("current_password"),
      "POST /api/v1/auth/otp/setup": { fresh_session: "always", body_proof: null },
      "POST /api/v1/auth/otp/verify": { fresh_session: "always", body_proof: null },
      "POST /api/v1/auth/passkeys/register/options": { fresh_session: "always", body_proof: null },
      "POST /api/v1/auth/passkeys/register/verify": { fresh_session: "always", body_proof: null },
      "DELETE /api/v1/auth/passkeys/{id}": { fresh_session: "always", body_proof: null },
      "POST /api/v1/auth/me/identities/google": { fresh_session: "always", body_proof: null },
      "DELETE /api/v1/auth/me/identities/google": { fresh_session: "always", body_proof: null },
      "DELETE /api/v1/auth/otp/disable": bodyProof("password"),
      "POST /api/v1/auth/me/phone/start": { fresh_session: "conditional", when: "the phone is not the account's verified phone", body_proof: null },
      "POST /api/v1/auth/me/phone/verify": {
        fresh_session: "conditional",
        when: "the code was texted to a phone other than the account's verified phone",
        body_proof: null,
      },
      "POST /api/v1/auth/me/email/start": { fresh_session: "conditional", when: "the account already has an email or a password", body_proof: null },
      "GET /api/v1/auth/me/export": { fresh_session: "always", body_proof: null },
      "DELETE /api/v1/auth/me": bodyProof("password"),
    });
    const sms = doc.paths["/api/v1/auth/reauthenticate/sms"].post;
    expect(Object.keys(sms.responses["409"].content["application/json"].examples)).toEqual(["NO_VERIFIED_PHONE"]);
  });
});
