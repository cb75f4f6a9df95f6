/**
 * Passkeys through HTTP, on both databases (docs/sign-in.md#passkeys), with the software
 * authenticator of the test support (attestation "none", ES256, built from the WebAuthn spec):
 * registered on a fresh session, listed, removed unless it is the last way in; a discoverable
 * sign-in that answers as login and, with user verification, is two factors. Every way an assertion
 * can be wrong answers 401 INVALID_CREDENTIALS: a challenge used twice, a replayed assertion, another
 * origin, another RP ID, a counter gone backwards, another shop's passkey.
 */
import { describe, expect } from "vitest";
import { SoftwareAuthenticator } from "@mteja/test-support/software-authenticator";
import { it } from "./support/fixture.js";
import { adminKey, registerUser, RestClient, trpcClient, type HttpResult, type TestApp } from "./support/app.js";
import { skipThisTarget } from "./support/database.js";
import { totpClock, step } from "./support/two-factor.js";
import { totpAt } from "./support/totp.js";
import { addressBody } from "./support/addresses.js";

const window = 60;
const appUrl = "https://duka.example.co.ke";

const clock = totpClock();
it.override({
  appEnv: { STEP_UP_WINDOW_SECONDS: String(window), APP_URL: appUrl },
  appOptions: { now: clock.now },
});

describe.skipIf(skipThisTarget)("passkeys: register, list, remove, sign in", () => {
  let t: TestApp;

  it.beforeAll(({ app }) => {
    t = app;
  });

  const stale = () => clock.advance(window + 1);

  function expectCode(answer: HttpResult, status: number, code: string): void {
    expect([answer.status, answer.body?.error?.code], JSON.stringify(answer.body)).toEqual([status, code]);
  }

  /** A signed-in customer with a fresh session and a passkey on the authenticator. */
  async function withPasskey(client = new RestClient(t.url), authenticator = new SoftwareAuthenticator(appUrl)) {
    const user = await registerUser(client);
    const options = await client.post("/api/v1/auth/passkeys/register/options", {}, user.accessToken);
    expect(options.status, JSON.stringify(options.body)).toBe(200);
    const verified = await client.post("/api/v1/auth/passkeys/register/verify", { response: authenticator.create(options.body.data), name: "Simu yangu" }, user.accessToken);
    expect(verified.status, JSON.stringify(verified.body)).toBe(201);
    return { client, user, authenticator, passkey: verified.body.data as { id: string; name: string; created_at: string; last_used_at: string | null } };
  }

  async function signInOptions(client: RestClient) {
    const options = await client.post("/api/v1/auth/passkeys/login/options", {});
    expect(options.status, JSON.stringify(options.body)).toBe(200);
    return options.body.data;
  }

  async function eventsOf(client: RestClient, token: string): Promise<{ type: string; details: Record<string, unknown> }[]> {
    const events = await client.get("/api/v1/auth/me/security-events", token);
    expect(events.status).toBe(200);
    return events.body.data.security_events;
  }

  it("registers a passkey under step-up: creation options as decided, 201 with the passkey, the event, the other sessions ended", async () => {
    const client = new RestClient(t.url);
    const user = await registerUser(client);
    const elsewhere = new RestClient(t.url);
    const other = await elsewhere.post("/api/v1/auth/login", { email: user.email, password: user.password });
    expect(other.status).toBe(200);

    const options = await client.post("/api/v1/auth/passkeys/register/options", {}, user.accessToken);
    expect(options.status).toBe(200);
    expect(options.headers.get("cache-control")).toContain("no-store");
    const data = options.body.data;
    expect(data.rp).toEqual({ id: "duka.example.co.ke", name: expect.any(String) });
    expect(data.authenticatorSelection).toMatchObject({ residentKey: "required", requireResidentKey: true, userVerification: "preferred" });
    expect(data.pubKeyCredParams.map((param: { alg: number }) => param.alg)).toEqual([-7, -257]);
    expect(data.attestation).toBe("none");
    expect(data.user.name).toBe(user.email);
    expect(Buffer.from(data.user.id, "base64url").toString()).toBe(user.id);

    const authenticator = new SoftwareAuthenticator(appUrl);
    const response = authenticator.create(data);
    const created = await client.post("/api/v1/auth/passkeys/register/verify", { response, name: "Simu yangu" }, user.accessToken);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.data).toEqual({ id: expect.any(String), name: "Simu yangu", created_at: clock.now().toISOString(), last_used_at: null });

    // Its challenge is spent: the same answer again registers nothing.
    const again = await client.post("/api/v1/auth/passkeys/register/verify", { response }, user.accessToken);
    expectCode(again, 422, "VALIDATION_ERROR");
    expect(again.body.error.details[0].path).toBe("response");

    const list = await client.get("/api/v1/auth/passkeys", user.accessToken);
    expect(list.body.data).toEqual({ passkeys: [created.body.data], next_cursor: null });
    const added = (await eventsOf(client, user.accessToken)).find((event) => event.type === "passkey.added");
    expect(added?.details).toEqual({ passkey_id: created.body.data.id, sessions_ended: 1 });
    // A new way in: whoever held another session is out.
    expectCode(await elsewhere.get("/api/v1/auth/passkeys", other.body.data.access_token), 401, "INVALID_TOKEN");

    // The next options exclude it, so the authenticator does not make a second one.
    const next = await client.post("/api/v1/auth/passkeys/register/options", {}, user.accessToken);
    expect(next.body.data.excludeCredentials).toEqual([{ id: response.id, type: "public-key", transports: ["internal"] }]);
  });

  it("adding or removing a passkey on a session that is not fresh: 403 STEP_UP_REQUIRED; listing is not sensitive", async () => {
    const { client, user, authenticator, passkey } = await withPasskey();
    const options = await client.post("/api/v1/auth/passkeys/register/options", {}, user.accessToken);
    stale();
    expectCode(await client.post("/api/v1/auth/passkeys/register/options", {}, user.accessToken), 403, "STEP_UP_REQUIRED");
    expectCode(
      await client.post("/api/v1/auth/passkeys/register/verify", { response: new SoftwareAuthenticator(appUrl).create(options.body.data) }, user.accessToken),
      403,
      "STEP_UP_REQUIRED",
    );
    expectCode(await client.request("DELETE", `/api/v1/auth/passkeys/${passkey.id}`, { token: user.accessToken }), 403, "STEP_UP_REQUIRED");
    expect((await client.get("/api/v1/auth/passkeys", user.accessToken)).body.data.passkeys).toHaveLength(1);

    // Reauthenticating makes it fresh again.
    expect((await client.post("/api/v1/auth/reauthenticate", { password: user.password }, user.accessToken)).status).toBe(200);
    const fresh = await client.post("/api/v1/auth/passkeys/register/options", {}, user.accessToken);
    expect(fresh.status).toBe(200);
    expect(authenticator.credentials).toHaveLength(1);
  });

  it("with guest_token the sign-in takes the guest over (its address moves here); anything but a live guest's token: 401", async () => {
    const { user, authenticator } = await withPasskey();
    const client = new RestClient(t.url);
    const guest = await client.post("/api/v1/auth/guest", {});
    expect(guest.status, JSON.stringify(guest.body)).toBe(201);
    const guestToken = guest.body.data.access_token as string;
    const address = await client.post("/api/v1/addresses", addressBody({ label: "Guest home" }), guestToken);
    expect(address.status).toBe(201);
    const verify = async (guest_token: string) =>
      client.post("/api/v1/auth/passkeys/login/verify", { response: authenticator.get(await signInOptions(client)), guest_token });

    expectCode(await verify(user.accessToken), 401, "INVALID_TOKEN");
    const signedIn = await verify(guestToken);
    expect(signedIn.status, JSON.stringify(signedIn.body)).toBe(200);
    const addresses = await client.get("/api/v1/addresses", signedIn.body.data.access_token);
    expect(addresses.body.data.addresses.map((a: { id: string }) => a.id)).toContain(address.body.data.address.id);
    // The guest is gone: its token takes nobody over twice.
    expectCode(await verify(guestToken), 401, "INVALID_TOKEN");
  });

  it("signs in with the passkey: discoverable options, an answer as login, fresh session, last_used_at, the event", async () => {
    const { user, authenticator, passkey } = await withPasskey();
    clock.advance(5);
    const client = new RestClient(t.url);
    const options = await signInOptions(client);
    expect(options).toMatchObject({ rpId: "duka.example.co.ke", userVerification: "preferred", allowCredentials: [] });

    const signedIn = await client.post("/api/v1/auth/passkeys/login/verify", { response: authenticator.get(options) });
    expect(signedIn.status, JSON.stringify(signedIn.body)).toBe(200);
    expect(signedIn.headers.get("cache-control")).toContain("no-store");
    expect(signedIn.body.data).toMatchObject({ requires_otp: false, access_token: expect.any(String), user: { id: user.id, email: user.email } });
    expect(signedIn.cookies.refresh_token?.value).toBeTruthy();
    const token = signedIn.body.data.access_token as string;
    // A new session, fresh: sensitive changes go through at once.
    expect((await client.get("/api/v1/auth/me/export", token)).status).toBe(200);
    expect((await client.post("/api/v1/auth/refresh")).status).toBe(200);

    const list = await client.get("/api/v1/auth/passkeys", token);
    expect(list.body.data.passkeys).toEqual([{ ...passkey, last_used_at: clock.now().toISOString() }]);
    const signIn = (await eventsOf(client, token)).find((event) => event.type === "sign_in.succeeded" && event.details.method === "passkey");
    expect(signIn).toBeDefined();
  });

  it("fails closed, 401 INVALID_CREDENTIALS: a challenge used twice, a replayed assertion, another origin, another RP ID, a counter gone backwards", async () => {
    const { authenticator } = await withPasskey();
    const client = new RestClient(t.url);
    const verify = (response: unknown) => client.post("/api/v1/auth/passkeys/login/verify", { response });

    // A challenge used twice: two assertions made for the same options, the second refused.
    const options = await signInOptions(client);
    const first = authenticator.get(options);
    const second = authenticator.get(options);
    expect((await verify(first)).status).toBe(200);
    expectCode(await verify(second), 401, "INVALID_CREDENTIALS");
    // The same assertion again (a replay).
    expectCode(await verify(first), 401, "INVALID_CREDENTIALS");

    // Signed for another origin, or for another RP ID: refused, and the challenge is spent by the try.
    const foreignOrigin = await signInOptions(client);
    const fromElsewhere = authenticator.get(foreignOrigin, { origin: "https://evil.example" });
    expectCode(await verify(fromElsewhere), 401, "INVALID_CREDENTIALS");
    expectCode(await verify(authenticator.get(foreignOrigin)), 401, "INVALID_CREDENTIALS");
    expectCode(await verify(authenticator.get(await signInOptions(client), { rpIdHashOf: "evil.example" })), 401, "INVALID_CREDENTIALS");

    // The counter goes backwards (a cloned authenticator), or stays where it was, after an accepted one.
    const credential = authenticator.credentials[0]!;
    expect((await verify(authenticator.get(await signInOptions(client)))).status).toBe(200);
    const accepted = credential.counter;
    expectCode(await verify(authenticator.get(await signInOptions(client), { counter: accepted - 1 })), 401, "INVALID_CREDENTIALS");
    expectCode(await verify(authenticator.get(await signInOptions(client), { counter: accepted })), 401, "INVALID_CREDENTIALS");
    // The genuine authenticator goes on.
    expect((await verify(authenticator.get(await signInOptions(client)))).status).toBe(200);

    // Options that were never handed out, and expired ones.
    const invented = { challenge: Buffer.alloc(32, 7).toString("base64url"), rpId: "duka.example.co.ke" };
    expectCode(await verify(authenticator.get(invented)), 401, "INVALID_CREDENTIALS");
    const old = await signInOptions(client);
    clock.advance(5 * 60 + 1);
    expectCode(await verify(authenticator.get(old)), 401, "INVALID_CREDENTIALS");
  });

  it("a passkey unknown here (another shop's, or one never registered) does not sign in", async () => {
    const admin = new RestClient(t.url, "");
    const created = await admin.request("POST", "/api/v1/admin/tenants", {
      body: { id: "duka-jirani", name: "Duka Jirani", settings: { appUrl } },
      headers: { authorization: `Bearer ${adminKey}` },
    });
    expect(created.status).toBe(200);
    const { authenticator } = await withPasskey();
    const neighbour = new RestClient(t.url, "duka-jirani");
    const options = await signInOptions(neighbour);
    // Same RP ID and origin, but the credential is the default shop's.
    expectCode(await neighbour.post("/api/v1/auth/passkeys/login/verify", { response: authenticator.get(options) }), 401, "INVALID_CREDENTIALS");

    const stranger = new SoftwareAuthenticator(appUrl);
    stranger.create({ challenge: "AAAA", rp: { id: "duka.example.co.ke", name: "x" }, user: { id: "c29tZW9uZQ", name: "x", displayName: "x" }, pubKeyCredParams: [{ alg: -7, type: "public-key" }] });
    const client = new RestClient(t.url);
    expectCode(await client.post("/api/v1/auth/passkeys/login/verify", { response: stranger.get(await signInOptions(client)) }), 401, "INVALID_CREDENTIALS");
  });

  it("with two-factor on, a passkey with user verification signs in without the code; without it, requires_otp", async () => {
    const { client, user, authenticator } = await withPasskey();
    const setup = await client.post("/api/v1/auth/otp/setup", undefined, user.accessToken);
    const secret = setup.body.data.secret as string;
    expect((await client.post("/api/v1/auth/otp/verify", { code: totpAt(secret, clock.now()) }, user.accessToken)).status).toBe(200);
    clock.advance(step);

    const verified = new RestClient(t.url);
    const withUv = await verified.post("/api/v1/auth/passkeys/login/verify", { response: authenticator.get(await signInOptions(verified)) });
    expect(withUv.status).toBe(200);
    expect(withUv.body.data.requires_otp).toBe(false);

    const presenceOnly = new RestClient(t.url);
    const withoutUv = await presenceOnly.post("/api/v1/auth/passkeys/login/verify", {
      response: authenticator.get(await signInOptions(presenceOnly), { userVerified: false }),
    });
    expect(withoutUv.status).toBe(200);
    expect(withoutUv.body.data).toEqual({ requires_otp: true, otp_token: expect.any(String) });
    expect(withoutUv.cookies.refresh_token).toBeUndefined();
    const validated = await presenceOnly.post("/api/v1/auth/otp/validate", { otp_token: withoutUv.body.data.otp_token, code: totpAt(secret, clock.now()) });
    expect(validated.status).toBe(200);
  });

  it("removes a passkey (the event, it signs in no more); the last way in stays: 409 LAST_SIGN_IN_METHOD", async () => {
    const { client, user, authenticator, passkey } = await withPasskey();
    const second = new SoftwareAuthenticator(appUrl);
    const options = await client.post("/api/v1/auth/passkeys/register/options", {}, user.accessToken);
    const other = await client.post("/api/v1/auth/passkeys/register/verify", { response: second.create(options.body.data) }, user.accessToken);
    expect(other.body.data.name).toBe("Passkey");

    expectCode(await client.request("DELETE", `/api/v1/auth/passkeys/${crypto.randomUUID()}`, { token: user.accessToken }), 404, "NOT_FOUND");
    const removed = await client.request("DELETE", `/api/v1/auth/passkeys/${passkey.id}`, { token: user.accessToken });
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    const removedEvent = (await eventsOf(client, user.accessToken)).find((event) => event.type === "passkey.removed");
    expect(removedEvent?.details).toEqual({ passkey_id: passkey.id });
    const signIn = new RestClient(t.url);
    expectCode(await signIn.post("/api/v1/auth/passkeys/login/verify", { response: authenticator.get(await signInOptions(signIn)) }), 401, "INVALID_CREDENTIALS");

    // An account whose only way in is its remaining passkey (no password, no verified phone).
    await t.deps.db.unscoped("test").user.update({ where: { id: user.id }, data: { passwordHash: null } });
    const last = await client.request("DELETE", `/api/v1/auth/passkeys/${other.body.data.id}`, { token: user.accessToken });
    expectCode(last, 409, "LAST_SIGN_IN_METHOD");
    expect((await client.get("/api/v1/auth/passkeys", user.accessToken)).body.data.passkeys).toHaveLength(1);
  });

  it("reauthenticate { passkey }: the session is fresh again; with user verification no two-factor code; another session's challenge or a replay is 401", async () => {
    const { client, user, authenticator } = await withPasskey();
    const setup = await client.post("/api/v1/auth/otp/setup", undefined, user.accessToken);
    expect((await client.post("/api/v1/auth/otp/verify", { code: totpAt(setup.body.data.secret, clock.now()) }, user.accessToken)).status).toBe(200);
    clock.advance(step);
    stale();
    expectCode(await client.post("/api/v1/auth/passkeys/register/options", {}, user.accessToken), 403, "STEP_UP_REQUIRED");

    const reauthOptions = async (token: string) => {
      const options = await client.post("/api/v1/auth/reauthenticate/passkey/options", {}, token);
      expect(options.status, JSON.stringify(options.body)).toBe(200);
      return options.body.data;
    };
    const options = await reauthOptions(user.accessToken);
    expect(options.allowCredentials).toEqual([{ id: authenticator.credentials[0]!.id.toString("base64url"), type: "public-key", transports: ["internal"] }]);

    // Without user verification, two-factor still wants its code.
    const presenceOnly = authenticator.get(options, { userVerified: false });
    const noCode = await client.post("/api/v1/auth/reauthenticate", { passkey: presenceOnly }, user.accessToken);
    expectCode(noCode, 422, "VALIDATION_ERROR");
    expect(noCode.body.error.details[0].path).toBe("code");

    const proof = authenticator.get(await reauthOptions(user.accessToken));
    const fresh = await client.post("/api/v1/auth/reauthenticate", { passkey: proof }, user.accessToken);
    expect(fresh.status, JSON.stringify(fresh.body)).toBe(200);
    expect(fresh.body.data.fresh_until).toBe(new Date(clock.now().getTime() + window * 1000).toISOString());
    expect((await client.post("/api/v1/auth/passkeys/register/options", {}, user.accessToken)).status).toBe(200);
    const event = (await eventsOf(client, user.accessToken)).find((item) => item.type === "reauthenticated");
    expect(event?.details.method).toBe("passkey");

    // The same assertion again, and an assertion to another session's options.
    stale();
    expectCode(await client.post("/api/v1/auth/reauthenticate", { passkey: proof }, user.accessToken), 401, "INVALID_CREDENTIALS");
    const other = await new RestClient(t.url).post("/api/v1/auth/login", { email: user.email, password: user.password });
    const otherSession = await new RestClient(t.url).post("/api/v1/auth/otp/validate", { otp_token: other.body.data.otp_token, code: totpAt(setup.body.data.secret, clock.now()) });
    expect(otherSession.status, JSON.stringify(otherSession.body)).toBe(200);
    const foreign = authenticator.get(await reauthOptions(otherSession.body.data.access_token));
    expectCode(await client.post("/api/v1/auth/reauthenticate", { passkey: foreign }, user.accessToken), 401, "INVALID_CREDENTIALS");
    expectCode(await client.post("/api/v1/auth/reauthenticate", { passkey: foreign, password: user.password }, user.accessToken), 422, "VALIDATION_ERROR");
  });

  it("spent and expired challenges are pruned after RETENTION_PASSKEY_CHALLENGES_DAYS; a live one stays", async () => {
    const client = new RestClient(t.url);
    const table = () => t.deps.db.unscoped("test").passkeyChallenge;
    await signInOptions(client);
    clock.advance(2 * 24 * 60 * 60);
    await signInOptions(client);
    const report = await t.retention.runOnce();
    expect(report.passkey_challenges).toBeGreaterThanOrEqual(1);
    const remaining = await table().findMany({ where: { createdAt: { lt: new Date(clock.now().getTime() - 24 * 60 * 60 * 1000) } } });
    expect(remaining).toEqual([]);
    expect(await table().count({ where: { expiresAt: { gt: clock.now() } } })).toBeGreaterThanOrEqual(1);
  });

  it("the same operations over tRPC: list and sign-in options", async () => {
    const { user } = await withPasskey();
    const client = trpcClient(t.url, () => ({ "x-tenant-id": "default", authorization: `Bearer ${user.accessToken}` }));
    const list = await client.passkeys.list.query({});
    expect(list.data.passkeys).toHaveLength(1);
    const options = await client.passkeys.loginOptions.mutate();
    expect(options.data.challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("a shop's settings.webauthn names its RP ID and origins; an IP address is refused as an RP ID", async () => {
    const admin = (body: unknown) => new RestClient(t.url, "").request("POST", "/api/v1/admin/tenants", { body, headers: { authorization: `Bearer ${adminKey}` } });
    const byIp = await admin({ id: "duka-ip", name: "Duka IP", settings: { webauthn: { rpId: "192.168.1.20" } } });
    expectCode(byIp, 422, "VALIDATION_ERROR");
    const shopOrigin = "https://pay.duka-ya-pili.example";
    const created = await admin({
      id: "duka-ya-pili",
      name: "Duka ya Pili",
      settings: { webauthn: { rpId: "duka-ya-pili.example", rpName: "Duka ya Pili", origins: [shopOrigin] } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);

    const client = new RestClient(t.url, "duka-ya-pili");
    const authenticator = new SoftwareAuthenticator(shopOrigin);
    const { passkey } = await withPasskey(client, authenticator);
    expect(passkey.name).toBe("Simu yangu");
    const options = await signInOptions(client);
    expect(options.rpId).toBe("duka-ya-pili.example");
    expect((await client.post("/api/v1/auth/passkeys/login/verify", { response: authenticator.get(options) })).status).toBe(200);
    // The process's APP_URL origin is not one of this shop's.
    const fromAppUrl = authenticator.get(await signInOptions(client), { origin: appUrl });
    expectCode(await client.post("/api/v1/auth/passkeys/login/verify", { response: fromAppUrl }), 401, "INVALID_CREDENTIALS");
  });
});
