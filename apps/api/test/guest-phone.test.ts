/**
 * A guest and the phone (docs/sign-in.md#guest-checkout): me/phone/start + me/phone/verify on a guest's
 * session upgrade it in place, with no step-up, answering a new token with role "customer" (409
 * PHONE_IN_USE for a phone another account has verified); phone/verify with `guest_token` signs in to
 * the phone's account and takes the guest over. Texts are read from the SMS simulator.
 */
import { describe, expect } from "vitest";
import type { SmsSimulator } from "@mteja/sms-sim";
import { RestClient, type TestApp } from "./support/app.js";
import { addressBody } from "./support/addresses.js";
import { testClock } from "./support/clock.js";
import { skipThisTarget } from "./support/database.js";
import { it } from "./support/fixture.js";
import { codeTexted, textsTo, uniquePhone } from "./support/sms.js";

const clock = testClock();
it.override({ appOptions: { now: clock.now } });

const roleOf = (token: string) => (JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()) as { role: string | null }).role;

describe.skipIf(skipThisTarget)("guest checkout and the phone", () => {
  let t: TestApp;
  let sim: SmsSimulator;
  it.beforeAll(({ smsApp }) => {
    ({ app: t, sim } = smsApp);
  });

  async function guest() {
    const client = new RestClient(t.url);
    const started = await client.post("/api/v1/auth/guest", {});
    expect(started.status).toBe(201);
    return { client, token: started.body.data.access_token as string, id: started.body.data.user.id as string };
  }

  async function verifyPhone(client: RestClient, token: string, phone: ReturnType<typeof uniquePhone>) {
    const texted = textsTo(sim, phone.international).length;
    expect((await client.post("/api/v1/auth/me/phone/start", { phone: phone.local }, token)).status).toBe(200);
    const code = await codeTexted(sim, phone.international, texted + 1);
    return client.post("/api/v1/auth/me/phone/verify", { code }, token);
  }

  it("me/phone/start + verify on a guest's session upgrade it in place, past the step-up window: a customer token, the same user", async () => {
    const g = await guest();
    expect((await g.client.post("/api/v1/addresses", addressBody(), g.token)).status).toBe(201);
    clock.advance(600);
    const phone = uniquePhone();
    const verified = await verifyPhone(g.client, g.token, phone);
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);
    expect(verified.body.data).toEqual({ phone: phone.stored, phone_verified: true, access_token: expect.any(String) });
    const token = verified.body.data.access_token as string;
    expect(roleOf(token)).toBe("customer");
    const me = await g.client.get("/api/v1/auth/me", token);
    expect(me.body.data).toMatchObject({ id: g.id, phone: phone.stored, phone_verified: true, is_guest: false, role: "customer" });
    expect((await g.client.get("/api/v1/addresses", token)).body.data.addresses).toHaveLength(1);
    expect(await t.deps.db.unscoped("test").securityEvent.count({ where: { userId: g.id, type: "guest.upgraded" } })).toBe(1);
    // And the phone signs in to that same account.
    const other = new RestClient(t.url);
    const texted = textsTo(sim, phone.international).length;
    await other.post("/api/v1/auth/phone/start", { phone: phone.local });
    const signedIn = await other.post("/api/v1/auth/phone/verify", { phone: phone.local, code: await codeTexted(sim, phone.international, texted + 1) });
    expect(signedIn.body.data.user.id).toBe(g.id);
  });

  it("a phone another account has verified: 409 PHONE_IN_USE, and the guest stays a guest", async () => {
    const owner = new RestClient(t.url);
    const phone = uniquePhone();
    await owner.post("/api/v1/auth/phone/start", { phone: phone.local });
    expect((await owner.post("/api/v1/auth/phone/verify", { phone: phone.local, code: await codeTexted(sim, phone.international) })).status).toBe(200);
    const g = await guest();
    const verified = await verifyPhone(g.client, g.token, phone);
    expect(verified.status).toBe(409);
    expect(verified.body.error.code).toBe("PHONE_IN_USE");
    expect((await g.client.get("/api/v1/auth/me", g.token)).body.data.is_guest).toBe(true);
  });

  it("phone/verify with guest_token signs in to the phone's account and takes the guest over; a bad guest_token signs nobody in", async () => {
    const owner = new RestClient(t.url);
    const phone = uniquePhone();
    await owner.post("/api/v1/auth/phone/start", { phone: phone.local });
    const account = await owner.post("/api/v1/auth/phone/verify", { phone: phone.local, code: await codeTexted(sim, phone.international) });
    const accountId = account.body.data.user.id as string;
    const g = await guest();
    expect((await g.client.post("/api/v1/addresses", addressBody(), g.token)).status).toBe(201);

    const client = new RestClient(t.url);
    let texted = textsTo(sim, phone.international).length;
    await client.post("/api/v1/auth/phone/start", { phone: phone.local });
    let code = await codeTexted(sim, phone.international, texted + 1);
    const refused = await client.post("/api/v1/auth/phone/verify", { phone: phone.local, code, guest_token: account.body.data.access_token });
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe("INVALID_TOKEN");
    expect(refused.cookies.refresh_token).toBeUndefined();

    // The code was not spent by the refused sign-in: it still signs in, with the guest's token.
    const signedIn = await client.post("/api/v1/auth/phone/verify", { phone: phone.local, code, guest_token: g.token });
    expect(signedIn.status, JSON.stringify(signedIn.body)).toBe(200);
    expect(signedIn.body.data.user.id).toBe(accountId);
    const addresses = (await client.get("/api/v1/addresses", signedIn.body.data.access_token)).body.data.addresses;
    expect(addresses).toHaveLength(1);
    expect(await t.deps.db.unscoped("test").user.findUnique({ where: { id: g.id } })).toBeNull();

    texted = textsTo(sim, phone.international).length;
    await client.post("/api/v1/auth/phone/start", { phone: phone.local });
    code = await codeTexted(sim, phone.international, texted + 1);
    const reused = await client.post("/api/v1/auth/phone/verify", { phone: phone.local, code, guest_token: g.token });
    expect(reused.status).toBe(401);
    expect(reused.body.error.code).toBe("INVALID_TOKEN");
  });
});
