/**
 * Guest checkout through HTTP (docs/sign-in.md#guest-checkout): POST /auth/guest signs a guest in
 * (role "guest"); a guest adds an address and pays, and may call only what declares `guestAllowed`
 * (else 403 FORBIDDEN, on REST and tRPC); it upgrades in place (same user, addresses, payments and
 * session, a new token with role "customer"); `guest_token` in a login moves its addresses, payments
 * and intents to the account signed in to and deletes it, once the sign-in completes (after
 * otp/validate with two-factor); anything but a live guest token of the shop answers 401 INVALID_TOKEN
 * and signs nobody in; unused guests are pruned, their payments kept.
 */
import { TRPCClientError } from "@trpc/client";
import { describe, expect } from "vitest";
import { adminKey, RestClient, registerUser, trpcClient, uniqueEmail, type HttpResult } from "./support/app.js";
import { addressBody } from "./support/addresses.js";
import { testClock } from "./support/clock.js";
import { skipThisTarget } from "./support/database.js";
import type { DarajaApp } from "./support/daraja.js";
import { it } from "./support/fixture.js";
import { newShop } from "./support/shops.js";
import { totpAt } from "./support/totp.js";
import { enrolledUser, step, totpClock } from "./support/two-factor.js";
import { waitFor } from "./support/wait.js";

// TOTP codes follow the service clock: one frozen on a step, moved by hand.
const clock = totpClock();
const day = 86_400;
it.override({ darajaOptions: { now: clock.now, env: { RETENTION_GUESTS_DAYS: "30" } } });

const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()) as { sub: string; tid: string; role: string | null };

describe.skipIf(skipThisTarget)("guest checkout", () => {
  let t: DarajaApp;
  it.beforeAll(({ momo }) => {
    t = momo;
  });
  const db = () => t.deps.db.unscoped("test");

  /** A guest of `tenant`, signed in: its client (with the refresh cookie), token and id. */
  async function guest(tenant = "default") {
    const client = new RestClient(t.url, tenant);
    const started = await client.post("/api/v1/auth/guest", {});
    expect(started.status).toBe(201);
    return { client, token: started.body.data.access_token as string, id: started.body.data.user.id as string, started };
  }

  /** A guest with an address and a settled payment. */
  async function guestWhoPaid() {
    const g = await guest();
    const address = await g.client.post("/api/v1/addresses", addressBody({ label: "Guest home" }), g.token);
    expect(address.status).toBe(201);
    const pushed = await g.client.post("/api/momo/stkpush", { phone: "0712345678", amount: 150, reference: "GUEST-1" }, g.token);
    expect(pushed.status).toBe(200);
    const checkoutRequestId = pushed.body.data.checkoutRequestId as string;
    await waitFor(async () => {
      const read = await g.client.get(`/api/momo/payments/${checkoutRequestId}`, g.token);
      return read.body.data.payment.status === "SUCCESS" ? true : undefined;
    });
    return { ...g, checkoutRequestId, addressId: address.body.data.address.id as string };
  }

  const expectError = (res: HttpResult, status: number, code: string) => {
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(res.body.error.code).toBe(code);
  };

  it("POST /auth/guest answers 201 as a login: a guest's token (role guest) and the refresh cookie; GET me says is_guest", async () => {
    const g = await guest();
    expect(g.started.body).toEqual({
      success: true,
      message: expect.any(String),
      data: { access_token: expect.any(String), user: { id: g.id, name: null, email: null, role: "guest", is_guest: true } },
    });
    expect(g.started.headers.get("cache-control")).toBe("no-store");
    expect(g.started.cookies.refresh_token?.value).toBeTruthy();
    expect(claimsOf(g.token)).toMatchObject({ sub: g.id, tid: "default", role: "guest" });
    const me = await g.client.get("/api/v1/auth/me", g.token);
    expect(me.body.data).toMatchObject({ id: g.id, email: null, phone: null, role: "guest", is_guest: true });
    // The refresh cookie gives a guest's token again.
    const refreshed = await g.client.post("/api/v1/auth/refresh");
    expect(refreshed.status).toBe(200);
    expect(claimsOf(refreshed.body.data.access_token).role).toBe("guest");
  });

  it("a guest adds an address and pays; everything not declared for guests answers 403 FORBIDDEN, on REST and tRPC", async () => {
    const g = await guestWhoPaid();
    expect((await g.client.get("/api/v1/addresses", g.token)).body.data.addresses).toHaveLength(1);
    expect((await g.client.get("/api/momo/payments", g.token)).body.data.payments).toHaveLength(1);

    expectError(await g.client.get("/api/v1/auth/sessions", g.token), 403, "FORBIDDEN");
    expectError(await g.client.put("/api/v1/auth/me", { name: "Guest" }, g.token), 403, "FORBIDDEN");
    expectError(await g.client.post("/api/v1/auth/otp/setup", undefined, g.token), 403, "FORBIDDEN");
    expectError(await g.client.get("/api/v1/auth/me/security-events", g.token), 403, "FORBIDDEN");
    expectError(await g.client.post("/api/v1/auth/me/email/start", { email: uniqueEmail() }, g.token), 403, "FORBIDDEN");
    const refused = await g.client.request("GET", "/api/v1/auth/sessions", { token: g.token, headers: { "accept-language": "sw" } });
    expect(refused.body.message).toBe("Mgeni hawezi kufanya hili. Hifadhi maelezo yako (jisajili) au uingie kwanza.");

    const trpc = trpcClient(t.url, () => ({ authorization: `Bearer ${g.token}`, "x-tenant-id": "default" }));
    expect((await trpc.addresses.list.query()).data.addresses).toHaveLength(1);
    const denied = await trpc.auth.listSessions.query({}).catch((error: unknown) => error);
    expect(denied).toBeInstanceOf(TRPCClientError);
    expect((denied as TRPCClientError<never>).data).toMatchObject({ httpStatus: 403 });
  });

  it("upgrade in place: same user, addresses, payments and session; a customer token; the email attached when its link is followed", async () => {
    const g = await guestWhoPaid();
    // Past the step-up window: a guest's upgrade needs no fresh session.
    clock.advance(600);
    const email = uniqueEmail("saved");
    const upgraded = await g.client.post("/api/v1/auth/guest/upgrade", { name: "Amina Njeri", email, password: "a long unbreached passphrase" }, g.token);
    expect(upgraded.status, JSON.stringify(upgraded.body)).toBe(200);
    expect(upgraded.body.data.user).toEqual({ id: g.id, name: "Amina Njeri", email: null, role: "customer", is_guest: false });
    const token = upgraded.body.data.access_token as string;
    expect(claimsOf(token)).toMatchObject({ sub: g.id, role: "customer" });
    expect(claimsOf(token).role).not.toBe(claimsOf(g.token).role);

    // A customer now: what a guest could not call, it can.
    expect((await g.client.get("/api/v1/auth/sessions", token)).status).toBe(200);
    expect((await g.client.get("/api/v1/addresses", token)).body.data.addresses.map((a: { id: string }) => a.id)).toEqual([g.addressId]);
    expect((await g.client.get("/api/momo/payments", token)).body.data.payments).toHaveLength(1);
    expect(await db().securityEvent.count({ where: { userId: g.id, type: "guest.upgraded" } })).toBe(1);
    // The same session: the refresh cookie goes on, with the new role.
    expect(claimsOf((await g.client.post("/api/v1/auth/refresh")).body.data.access_token).role).toBe("customer");
    // A second upgrade: not a guest any more.
    expectError(await g.client.post("/api/v1/auth/guest/upgrade", { email: uniqueEmail(), password: "another long passphrase" }, token), 403, "FORBIDDEN");

    const mail = await waitFor(() => db().mailOutbox.findFirst({ where: { toAddress: email, kind: "confirmEmailChange" } }));
    const linkToken = /token=([0-9a-f]{64})/.exec(mail.textBody)![1]!;
    const fresh = (await g.client.post("/api/v1/auth/refresh")).body.data.access_token as string;
    const verified = await g.client.post("/api/v1/auth/me/email/verify", { token: linkToken }, fresh);
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);
    const login = await new RestClient(t.url).post("/api/v1/auth/login", { email, password: "a long unbreached passphrase" });
    expect(login.status).toBe(200);
    expect(login.body.data.user.id).toBe(g.id);
  });

  it("an upgrade to an address another account has is refused at verify (409 EMAIL_IN_USE), never at the upgrade", async () => {
    const other = await registerUser(new RestClient(t.url));
    const g = await guest();
    const upgraded = await g.client.post("/api/v1/auth/guest/upgrade", { email: other.email, password: "a long unbreached passphrase" }, g.token);
    expect(upgraded.status).toBe(200);
    const mail = await waitFor(() => db().mailOutbox.findFirst({ where: { toAddress: other.email, kind: "confirmEmailChange" } }));
    const linkToken = /token=([0-9a-f]{64})/.exec(mail.textBody)![1]!;
    expectError(await g.client.post("/api/v1/auth/me/email/verify", { token: linkToken }, upgraded.body.data.access_token), 409, "EMAIL_IN_USE");
  });

  it("login with guest_token moves the guest's addresses, payments and bound intents to the account and deletes the guest", async () => {
    const customerClient = new RestClient(t.url);
    const customer = await registerUser(customerClient);
    const own = await customerClient.post("/api/v1/addresses", addressBody({ label: "Office" }), customer.accessToken);
    expect(own.body.data.address.is_default).toBe(true);
    const g = await guestWhoPaid();
    const key = (await new RestClient(t.url, "").request("POST", "/api/v1/admin/tenants/default/api-keys", { body: { name: "Shop" }, headers: { authorization: `Bearer ${adminKey}` } })).body.data.key;
    const intent = await t.rest.request("POST", "/api/v1/payment-intents", { body: { amount: 300, reference: `GI${Date.now().toString(36)}`.slice(0, 12), user_id: g.id }, token: key });
    expect(intent.status).toBe(201);

    const login = await new RestClient(t.url).post("/api/v1/auth/login", { email: customer.email, password: customer.password, guest_token: g.token });
    expect(login.status, JSON.stringify(login.body)).toBe(200);
    const token = login.body.data.access_token as string;
    const addresses = (await customerClient.get("/api/v1/addresses", token)).body.data.addresses as { id: string; is_default: boolean }[];
    expect(addresses.map((a) => [a.id, a.is_default]).sort()).toEqual([[g.addressId, false], [own.body.data.address.id, true]].sort());
    expect((await customerClient.get(`/api/momo/payments/${g.checkoutRequestId}`, token)).body.data.payment).toMatchObject({ status: "SUCCESS" });
    expect((await t.rest.request("GET", `/api/v1/payment-intents/${intent.body.data.id}`, { token: key })).body.data.user_id).toBe(customer.id);
    expect(await db().user.findUnique({ where: { id: g.id } })).toBeNull();
    const merged = await db().securityEvent.findFirst({ where: { userId: customer.id, type: "guest.merged" } });
    expect(merged?.details).toMatchObject({ guest_id: g.id, addresses: 1, payments: 1, intents: 1 });

    // The guest's token died with it, and its cookie.
    expectError(await g.client.get("/api/v1/addresses", g.token), 401, "INVALID_TOKEN");
    expectError(await g.client.post("/api/v1/auth/refresh"), 401, "INVALID_TOKEN");
  });

  it("a guest token used after its guest was merged: 401 INVALID_TOKEN and no sign-in", async () => {
    const first = await registerUser(new RestClient(t.url));
    const second = await registerUser(new RestClient(t.url));
    const g = await guest();
    expect((await new RestClient(t.url).post("/api/v1/auth/login", { email: first.email, password: first.password, guest_token: g.token })).status).toBe(200);
    const signIns = await db().securityEvent.count({ where: { userId: second.id, type: "sign_in.succeeded" } });
    const again = await new RestClient(t.url).post("/api/v1/auth/login", { email: second.email, password: second.password, guest_token: g.token });
    expectError(again, 401, "INVALID_TOKEN");
    expect(again.cookies.refresh_token).toBeUndefined();
    expect(await db().securityEvent.count({ where: { userId: second.id, type: "sign_in.succeeded" } })).toBe(signIns);
  });

  it("bad guest tokens — a customer's, another shop's guest's, an expired one, garbage — answer 401 INVALID_TOKEN and sign nobody in", async () => {
    const customer = await registerUser(new RestClient(t.url));
    const other = await registerUser(new RestClient(t.url));
    const shop = await newShop(t);
    const foreign = await guest(shop);
    const expiring = await guest();
    clock.advance(16 * 60); // past the access token's 15 minutes
    const sessions = await db().session.count({ where: { userId: customer.id } });
    for (const guestToken of [other.accessToken, foreign.token, expiring.token, "not-a-token"]) {
      const login = await new RestClient(t.url).post("/api/v1/auth/login", { email: customer.email, password: customer.password, guest_token: guestToken });
      expectError(login, 401, "INVALID_TOKEN");
      expect(login.cookies.refresh_token).toBeUndefined();
    }
    expect(await db().session.count({ where: { userId: customer.id } })).toBe(sessions);
    // Nothing was merged: the guests are still there.
    expect(await db().user.count({ where: { id: { in: [foreign.id, expiring.id] } } })).toBe(2);
  });

  it("with two-factor the guest is merged only when otp/validate completes the sign-in", async () => {
    const user = await enrolledUser(t.url, clock);
    const g = await guestWhoPaid();
    clock.advance(step);
    const login = await new RestClient(t.url).post("/api/v1/auth/login", { email: user.email, password: user.password, guest_token: g.token });
    expect(login.body.data.requires_otp).toBe(true);
    expect(await db().user.findUnique({ where: { id: g.id } })).not.toBeNull();
    const validated = await new RestClient(t.url).post("/api/v1/auth/otp/validate", { otp_token: login.body.data.otp_token, code: totpAt(user.secret, clock.now()) });
    expect(validated.status, JSON.stringify(validated.body)).toBe(200);
    expect(await db().user.findUnique({ where: { id: g.id } })).toBeNull();
    expect(await db().address.count({ where: { userId: user.id } })).toBe(1);
    expect(await db().payment.count({ where: { userId: user.id } })).toBe(1);
  });

  it("guests unused for RETENTION_GUESTS_DAYS are deleted with their addresses; their payments are kept", async () => {
    const unused = await guestWhoPaid();
    const used = await guest();
    clock.advance(29 * day);
    // A refresh is a use.
    expect((await used.client.post("/api/v1/auth/refresh")).status).toBe(200);
    clock.advance(2 * day);
    const report = await t.retention.runOnce();
    expect(report.guests).toBeGreaterThanOrEqual(1);
    expect(await db().user.findUnique({ where: { id: unused.id } })).toBeNull();
    expect(await db().address.count({ where: { id: unused.addressId } })).toBe(0);
    const payment = await db().payment.findFirst({ where: { checkoutRequestId: unused.checkoutRequestId } });
    expect(payment).toMatchObject({ status: "SUCCESS", userId: null });
    expect(await db().user.findUnique({ where: { id: used.id } })).not.toBeNull();
  });
});

describe.skipIf(skipThisTarget)("guest checkout: guests per IP", () => {
  it("at most guests_per_ip guests per IP per window (429 RATE_LIMITED)", async ({ launch }) => {
    const t = await launch.app({ RATE_LIMIT_RULES: "guests_per_ip=2/3600" });
    const client = new RestClient(t.url);
    expect((await client.post("/api/v1/auth/guest", {})).status).toBe(201);
    expect((await client.post("/api/v1/auth/guest", {})).status).toBe(201);
    const third = await client.post("/api/v1/auth/guest", {});
    expect(third.status).toBe(429);
    expect(third.body.error.code).toBe("RATE_LIMITED");
  });
});
