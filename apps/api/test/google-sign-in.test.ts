/**
 * Sign in with Google through HTTP on both databases (docs/sign-in.md#sign-in-with-google), against the
 * Google simulator (a real OpenID provider on 127.0.0.1): the redirect flow with PKCE, state and nonce
 * bound to a cookie; the ID-token flow with single-use nonces; the account found by the linked `sub`,
 * never by email alone (ACCOUNT_EXISTS, an unverified holder losing the address); two-factor after
 * Google; and what fails closed: a forged, expired or foreign-audience ID token, a nonce used twice, a
 * state that does not match, a callback without its cookie.
 */
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import { adminKey, RestClient, registerUser, trpcClient, uniqueEmail, type TestApp } from "./support/app.js";
import { skipThisTarget } from "./support/database.js";
import { step } from "./support/two-factor.js";
import { totpAt } from "./support/totp.js";
import { addressBody } from "./support/addresses.js";
import {
  accessTokenFrom,
  Browser,
  callbackPath,
  demoPage,
  finishAtCallback,
  idTokenWithNonce,
  googleShopOn,
  signInWithGoogle,
  startUrl,
  throughGoogle,
} from "./support/google.js";
import { googleTests, type GoogleShop } from "./support/google-tests.js";

const google = await googleTests();
const { sim, clock, client } = google;

describe.skipIf(skipThisTarget)("Sign in with Google", () => {
  google.hooks();
  let t: TestApp;
  let shop: GoogleShop;
  it.beforeAll(() => {
    ({ t, shop } = google);
  });

  const me = async (token: string) => (await client().get("/api/v1/auth/me", token)).body.data;

  describe("the redirect flow", () => {
    it("sends the browser to Google with state, nonce and PKCE S256, bound to an HttpOnly SameSite=Lax cookie", async () => {
      const browser = new Browser();
      const start = await browser.go(`${t.url}/api/v1/auth/oidc/google/start?tenant=${shop.tenantId}&redirect_uri=${encodeURIComponent(demoPage)}`);
      expect(start.status).toBe(302);
      const to = new URL(start.headers.get("location")!);
      expect(to.origin).toBe(sim.issuer);
      expect(Object.fromEntries(to.searchParams)).toMatchObject({
        client_id: shop.clientId,
        response_type: "code",
        redirect_uri: `${t.url}${callbackPath}`,
        code_challenge_method: "S256",
        state: expect.stringMatching(/^[\w-]{43}$/),
        nonce: expect.stringMatching(/^[\w-]{43}$/),
        code_challenge: expect.stringMatching(/^[\w-]{43}$/),
      });
      const cookie = start.headers.getSetCookie().find((line) => line.startsWith("google_sign_in="))!;
      expect(cookie).toMatch(/HttpOnly/i);
      expect(cookie).toMatch(/SameSite=Lax/i);
      expect(cookie).toMatch(/Path=\/api\/v1\/auth\/oidc\/google/);
      expect(cookie).toMatch(/Max-Age=600/);
      // Nothing readable in it: the verifier and the nonce are sealed.
      expect(cookie).not.toContain(to.searchParams.get("nonce")!);
    });

    it("signs up a new person with the verified email, returns to the app, and the same Google account signs in again", async () => {
      const email = uniqueEmail("google");
      const first = await signInWithGoogle(t, shop, { email });
      expect(first.status).toBe(302);
      expect(first.location).toBe(demoPage);
      expect(first.response.headers.get("cache-control")).toContain("no-store");
      const token = await accessTokenFrom(t, shop.tenantId, first.refreshCookie!);
      const profile = await me(token);
      expect(profile).toMatchObject({ email, email_verified: true, phone: null, otp_enabled: false });
      expect(profile.identities).toEqual([{ provider: "google", email, linked_at: expect.stringMatching(/Z$/) }]);
      // The flow's cookie is gone once used.
      const again = await signInWithGoogle(t, shop, { email });
      expect(again.location).toBe(demoPage);
      expect((await me(await accessTokenFrom(t, shop.tenantId, again.refreshCookie!))).id).toBe(profile.id);
      const events = await client().get("/api/v1/auth/me/security-events", token);
      expect(events.body.data.security_events.map((e: { type: string; details: Record<string, unknown> }) => [e.type, e.details.method ?? e.details.provider])).toEqual(
        expect.arrayContaining([["identity.linked", "google"], ["sign_in.succeeded", "google"]]),
      );
    });

    it("refuses a redirect_uri the shop did not list (422), and needs the shop", async () => {
      const bad = await new Browser().go(`${t.url}/api/v1/auth/oidc/google/start?tenant=${shop.tenantId}&redirect_uri=${encodeURIComponent("https://evil.example/")}`);
      expect(bad.status).toBe(422);
      expect(((await bad.json()) as { error: unknown }).error).toMatchObject({ code: "VALIDATION_ERROR", details: [expect.objectContaining({ path: "redirect_uri" })] });
      const none = await new Browser().go(`${t.url}/api/v1/auth/oidc/google/start?redirect_uri=${encodeURIComponent(demoPage)}`);
      expect(none.status).toBe(400);
      const byHeader = await new Browser().go(`${t.url}/api/v1/auth/oidc/google/start?redirect_uri=${encodeURIComponent(demoPage)}`, { headers: { "x-tenant-id": shop.tenantId } });
      expect(byHeader.status).toBe(302);
      const noGoogle = await new Browser().go(`${t.url}/api/v1/auth/oidc/google/start?tenant=default&redirect_uri=${encodeURIComponent(demoPage)}`);
      expect(noGoogle.status).toBe(404);
    });

    it("fails closed on a state that does not match: back to the app with ?error=INVALID_TOKEN, no session", async () => {
      const trip = await throughGoogle(t, shop, { email: uniqueEmail("state") });
      const tampered = new URL(trip.callbackUrl);
      tampered.searchParams.set("state", "x".repeat(43));
      const back = await finishAtCallback(t, trip, tampered.href);
      expect(back.status).toBe(302);
      expect(back.location).toBe(`${demoPage}?error=INVALID_TOKEN`);
      expect(back.refreshCookie).toBeUndefined();
      // The cookie is spent: the real callback now has nothing to match.
      const replay = await finishAtCallback(t, trip);
      expect(replay.status).toBe(401);
    });

    it("answers 401 at a callback without the flow's cookie (another browser), and refuses a forged cookie", async () => {
      const trip = await throughGoogle(t, shop, { email: uniqueEmail("cookie") });
      const elsewhere = await new Browser().go(trip.callbackUrl);
      expect(elsewhere.status).toBe(401);
      expect(((await elsewhere.json()) as { error: { code: string } }).error.code).toBe("INVALID_TOKEN");
      const forged = new Browser();
      forged.jar.set(t.url, "google_sign_in", "v1.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA.AAAA");
      expect((await forged.go(trip.callbackUrl)).status).toBe(401);
    });

    it("answers ?error=ACCOUNT_EXISTS for a verified email of an account it is not linked to", async () => {
      const email = uniqueEmail("exists");
      // An account with that verified email: made by Google under another Google account (another sub).
      const owner = await new RestClient(t.url, shop.tenantId).post("/api/v1/auth/oidc/google/id-token", {
        id_token: await idTokenForSub(email, "100000000000000000001"),
      });
      expect(owner.status, JSON.stringify(owner.body)).toBe(200);
      const back = await signInWithGoogle(t, shop, { email });
      expect(back.location).toBe(`${demoPage}?error=ACCOUNT_EXISTS`);
      expect(back.refreshCookie).toBeUndefined();
    });

    it("with two-factor on, returns with #otp_token and otp/validate finishes the sign-in", async () => {
      const email = uniqueEmail("twofactor");
      const token = await accessTokenFrom(t, shop.tenantId, (await signInWithGoogle(t, shop, { email })).refreshCookie!);
      const secret = await turnOnTwoFactor(token);
      const back = await signInWithGoogle(t, shop, { email });
      expect(back.location).toMatch(new RegExp(`^${demoPage}#otp_token=[\\w%-]+$`));
      expect(back.refreshCookie).toBeUndefined();
      const otpToken = decodeURIComponent(back.location!.split("#otp_token=")[1]!);
      clock.advance(step);
      const validated = await client().post("/api/v1/auth/otp/validate", { otp_token: otpToken, code: totpAt(secret, clock.now()) });
      expect(validated.status).toBe(200);
      expect(validated.body.data.user.email).toBe(email);
    });
    describe("with guest_token", () => {
      /** A guest of the shop with an address: its token and the address's id. */
      async function guestWithAddress(tenantId = shop.tenantId) {
        const guestClient = new RestClient(t.url, tenantId);
        const guest = await guestClient.post("/api/v1/auth/guest", {});
        expect(guest.status, JSON.stringify(guest.body)).toBe(201);
        const token = guest.body.data.access_token as string;
        const address = await guestClient.post("/api/v1/addresses", addressBody({ label: "Guest home" }), token);
        expect(address.status).toBe(201);
        return { token, addressId: address.body.data.address.id as string };
      }

      async function expectRefusedAtStart(guestToken: string) {
        const start = await new Browser().go(startUrl(t, shop, { guestToken }));
        expect(start.status).toBe(401);
        expect(((await start.json()) as { error: { code: string } }).error.code).toBe("INVALID_TOKEN");
        // Refused before Google: no sign-in begun.
        expect(start.headers.getSetCookie().some((line) => line.startsWith("google_sign_in="))).toBe(false);
      }

      it("takes the guest over when the callback completes the sign-in; the merged guest's token is then refused", async () => {
        const guest = await guestWithAddress();
        const back = await finishAtCallback(t, await throughGoogle(t, shop, { email: uniqueEmail("redirect-guest") }, { guestToken: guest.token }));
        expect(back.location).toBe(demoPage);
        const token = await accessTokenFrom(t, shop.tenantId, back.refreshCookie!);
        const addresses = await client().get("/api/v1/addresses", token);
        expect(addresses.body.data.addresses.map((a: { id: string }) => a.id)).toContain(guest.addressId);
        const events = (await client().get("/api/v1/auth/me/security-events", token)).body.data.security_events as { type: string; details: Record<string, unknown> }[];
        expect(events.map((e) => [e.type, e.details.method ?? e.details.addresses])).toEqual(expect.arrayContaining([["guest.merged", 1], ["sign_in.succeeded", "google"]]));
        await expectRefusedAtStart(guest.token);
      });

      it("refuses at the start (401 INVALID_TOKEN) what is not a live guest's token of this shop", async () => {
        const customer = await registerUser(client());
        const otherShopsGuest = await guestWithAddress("default");
        for (const token of ["not.a.token", customer.accessToken, otherShopsGuest.token]) await expectRefusedAtStart(token);
      });

      it("with two-factor on, the guest is taken over once otp/validate finishes the sign-in", async () => {
        const email = uniqueEmail("redirect-guest-2fa");
        const secret = await turnOnTwoFactor(await accessTokenFrom(t, shop.tenantId, (await signInWithGoogle(t, shop, { email })).refreshCookie!));
        const guest = await guestWithAddress();
        const back = await finishAtCallback(t, await throughGoogle(t, shop, { email }, { guestToken: guest.token }));
        const otpToken = decodeURIComponent(back.location!.split("#otp_token=")[1]!);
        clock.advance(step);
        const validated = await client().post("/api/v1/auth/otp/validate", { otp_token: otpToken, code: totpAt(secret, clock.now()) });
        expect(validated.status, JSON.stringify(validated.body)).toBe(200);
        const addresses = await client().get("/api/v1/addresses", validated.body.data.access_token);
        expect(addresses.body.data.addresses.map((a: { id: string }) => a.id)).toContain(guest.addressId);
      });

      it("a guest taken over elsewhere between start and callback: back with ?error=INVALID_TOKEN, no session", async () => {
        const guest = await guestWithAddress();
        const trip = await throughGoogle(t, shop, { email: uniqueEmail("redirect-guest-raced") }, { guestToken: guest.token });
        const customer = await registerUser(client());
        const elsewhere = await client().post("/api/v1/auth/login", { email: customer.email, password: customer.password, guest_token: guest.token });
        expect(elsewhere.status, JSON.stringify(elsewhere.body)).toBe(200);
        const back = await finishAtCallback(t, trip);
        expect(back.location).toBe(`${demoPage}?error=INVALID_TOKEN`);
        expect(back.refreshCookie).toBeUndefined();
      });
    });
  });

  describe("the ID-token flow (One Tap, mobile)", () => {
    it("with guest_token takes the guest over (its address moves here); another token: 401 and the nonce kept", async () => {
      const email = uniqueEmail("onetap-guest");
      const guest = await client().post("/api/v1/auth/guest", {});
      expect(guest.status, JSON.stringify(guest.body)).toBe(201);
      const guestToken = guest.body.data.access_token as string;
      const address = await client().post("/api/v1/addresses", addressBody({ label: "Guest home" }), guestToken);
      expect(address.status).toBe(201);
      const idToken = await idTokenWithNonce(t, sim, shop, { email });
      const refused = await client().post("/api/v1/auth/oidc/google/id-token", { id_token: idToken, guest_token: "not.a.token" });
      expect([refused.status, refused.body.error.code]).toEqual([401, "INVALID_TOKEN"]);
      // Refused before the nonce was spent: the same ID token still signs in.
      const signedIn = await client().post("/api/v1/auth/oidc/google/id-token", { id_token: idToken, guest_token: guestToken });
      expect(signedIn.status, JSON.stringify(signedIn.body)).toBe(200);
      const addresses = await client().get("/api/v1/addresses", signedIn.body.data.access_token);
      expect(addresses.body.data.addresses.map((a: { id: string }) => a.id)).toContain(address.body.data.address.id);
    });

    it("answers as login: an access token and the refresh cookie; a nonce is single use", async () => {
      const email = uniqueEmail("onetap");
      const idToken = await idTokenWithNonce(t, sim, shop, { email });
      const c = client();
      const signedIn = await c.post("/api/v1/auth/oidc/google/id-token", { id_token: idToken });
      expect(signedIn.status).toBe(200);
      expect(signedIn.body.data).toMatchObject({ requires_otp: false, access_token: expect.any(String), user: { email } });
      expect(signedIn.cookies.refresh_token?.value).toBeTruthy();
      expect(signedIn.headers.get("cache-control")).toContain("no-store");
      const replay = await client().post("/api/v1/auth/oidc/google/id-token", { id_token: idToken });
      expect([replay.status, replay.body.error.code]).toEqual([401, "INVALID_TOKEN"]);
    });

    it("refuses a forged, an expired, a foreign-audience token, one without a nonce or with a nonce never issued", async () => {
      const email = uniqueEmail("refused");
      const nonce = async () => (await client().post("/api/v1/auth/oidc/google/nonce", {})).body.data.nonce as string;
      const tokens = {
        forged: await forgedToken(email, await nonce()),
        expired: await sim.mintIdToken({ audience: shop.clientId, email, nonce: await nonce(), expiresInSeconds: -120 }),
        foreignAudience: await sim.mintIdToken({ audience: "another-app.apps.googleusercontent.test", email, nonce: await nonce() }),
        otherIssuer: await sim.mintIdToken({ audience: shop.clientId, email, nonce: await nonce(), issuer: "https://accounts.google.com" }),
        noNonce: await sim.mintIdToken({ audience: shop.clientId, email }),
        unknownNonce: await sim.mintIdToken({ audience: shop.clientId, email, nonce: "n".repeat(43) }),
        notAJwt: "not-a-jwt",
      };
      for (const [kind, idToken] of Object.entries(tokens)) {
        const answer = await client().post("/api/v1/auth/oidc/google/id-token", { id_token: idToken });
        expect([kind, answer.status, answer.body.error?.code]).toEqual([kind, 401, "INVALID_TOKEN"]);
      }
      // None of them made an account: the same person signs up cleanly afterwards.
      const fine = await client().post("/api/v1/auth/oidc/google/id-token", { id_token: await idTokenWithNonce(t, sim, shop, { email }) });
      expect(fine.status).toBe(200);
    });

    it("spends a nonce by its first use even when that token fails", async () => {
      const email = uniqueEmail("spent");
      const issued = (await client().post("/api/v1/auth/oidc/google/nonce", {})).body.data.nonce as string;
      const failed = await client().post("/api/v1/auth/oidc/google/id-token", { id_token: await forgedToken(email, issued) });
      expect(failed.status).toBe(401);
      const genuine = await sim.mintIdToken({ audience: shop.clientId, email, nonce: issued });
      const answer = await client().post("/api/v1/auth/oidc/google/id-token", { id_token: genuine });
      expect([answer.status, answer.body.error?.code]).toEqual([401, "INVALID_TOKEN"]);
    });

    it("expires a nonce after 5 minutes", async () => {
      const email = uniqueEmail("late");
      const issued = (await client().post("/api/v1/auth/oidc/google/nonce", {})).body.data;
      expect(Date.parse(issued.expires_at) - clock.now().getTime()).toBe(300_000);
      clock.advance(301);
      const late = await client().post("/api/v1/auth/oidc/google/id-token", { id_token: await sim.mintIdToken({ audience: shop.clientId, email, nonce: issued.nonce }) });
      expect(late.status).toBe(401);
    });

    it("answers requires_otp for an account with two-factor", async () => {
      const email = uniqueEmail("onetap-2fa");
      const first = await client().post("/api/v1/auth/oidc/google/id-token", { id_token: await idTokenWithNonce(t, sim, shop, { email }) });
      await turnOnTwoFactor(first.body.data.access_token);
      const second = await client().post("/api/v1/auth/oidc/google/id-token", { id_token: await idTokenWithNonce(t, sim, shop, { email }) });
      expect(second.status).toBe(200);
      expect(second.body.data).toEqual({ requires_otp: true, otp_token: expect.any(String) });
      expect(second.cookies.refresh_token).toBeUndefined();
    });

    it("answers alike over tRPC", async () => {
      const email = uniqueEmail("trpc");
      const trpc = trpcClient(t.url, () => ({ "x-tenant-id": shop.tenantId }));
      const answer = await trpc.google.idToken.mutate({ id_token: await idTokenWithNonce(t, sim, shop, { email }) });
      expect(answer.data).toMatchObject({ requires_otp: false, user: { email } });
    });
  });

  describe("which account", () => {
    it("answers 409 ACCOUNT_EXISTS for the verified email of an unlinked account, and never links by email alone", async () => {
      const email = uniqueEmail("owner");
      const owner = await client().post("/api/v1/auth/oidc/google/id-token", { id_token: await idTokenForSub(email, "100000000000000000002") });
      expect(owner.status).toBe(200);
      const other = await client().post("/api/v1/auth/oidc/google/id-token", { id_token: await idTokenWithNonce(t, sim, shop, { email }) });
      expect([other.status, other.body.error.code]).toEqual([409, "ACCOUNT_EXISTS"]);
      expect(other.cookies.refresh_token).toBeUndefined();
    });

    it("takes the address from an account that holds it unverified; that account stays signed in without it", async () => {
      const holder = await registerUser(new RestClient(t.url, shop.tenantId));
      const google = await client().post("/api/v1/auth/oidc/google/id-token", { id_token: await idTokenWithNonce(t, sim, shop, { email: holder.email }) });
      expect(google.status).toBe(200);
      expect(google.body.data.user.id).not.toBe(holder.id);
      expect(await me(google.body.data.access_token)).toMatchObject({ email: holder.email, email_verified: true });
      expect(await me(holder.accessToken)).toMatchObject({ email: null });
    });

    it("attaches no email Google has not verified: the account is made without one", async () => {
      const holder = await registerUser(new RestClient(t.url, shop.tenantId));
      const google = await client().post("/api/v1/auth/oidc/google/id-token", {
        id_token: await idTokenWithNonce(t, sim, shop, { email: holder.email, verified: false }),
      });
      expect(google.status).toBe(200);
      const profile = await me(google.body.data.access_token);
      expect(profile).toMatchObject({ email: null, email_verified: false, identities: [{ provider: "google", email: holder.email }] });
      expect((await me(holder.accessToken)).email).toBe(holder.email);
    });
  });

  describe("settings", () => {
    it("shows the client secret as \"set\", stored encrypted", async () => {
      const admin = new RestClient(t.url, "");
      const listed = await admin.request("GET", "/api/v1/admin/tenants", { headers: { authorization: `Bearer ${adminKey}` } });
      const mine = listed.body.data.tenants.find((tenant: { id: string }) => tenant.id === shop.tenantId);
      expect(mine.settings.oidc.google).toEqual({ clientId: shop.clientId, clientSecret: "set", redirectUris: [demoPage] });
      const kept = await admin.request("PATCH", `/api/v1/admin/tenants/${shop.tenantId}`, {
        body: { settings: { oidc: { google: { clientSecret: "set", redirectUris: [demoPage, "https://shop.example/other"] } } } },
        headers: { authorization: `Bearer ${adminKey}` },
      });
      expect(kept.status, JSON.stringify(kept.body)).toBe(200);
      // The secret kept: the redirect flow still signs in.
      const back = await signInWithGoogle(t, shop, { email: uniqueEmail("kept") });
      expect(back.location).toBe(demoPage);
    });
  });

  describe("retention", () => {
    // Last in the file: it moves the clock on by days.
    it("prunes nonces expired unused for RETENTION_OIDC_NONCES_DAYS (1 day), in every shop; a live one stays", async () => {
      const table = () => t.deps.db.unscoped("test").oidcNonce;
      const issued = (await client().post("/api/v1/auth/oidc/google/nonce", {})).body.data;
      clock.advance(2 * 24 * 60 * 60);
      // Another shop's nonce: issuing it does not sweep this shop's expired ones.
      const otherShop = await googleShopOn(t, sim);
      const live = await new RestClient(t.url, otherShop.tenantId).post("/api/v1/auth/oidc/google/nonce", {});
      expect(live.status).toBe(200);
      expect(await table().count({ where: { tenantId: shop.tenantId, expiresAt: new Date(issued.expires_at) } })).toBe(1);
      const report = await t.retention.runOnce();
      expect(report.oidc_nonces).toBeGreaterThanOrEqual(1);
      expect(await table().count({ where: { expiresAt: { lt: new Date(clock.now().getTime() - 24 * 60 * 60 * 1000) } } })).toBe(0);
      expect(await table().count({ where: { tenantId: otherShop.tenantId, expiresAt: new Date(live.body.data.expires_at) } })).toBe(1);
    });
  });

  /** A token for `sub` (another Google account with the same email), with a nonce from the service. */
  async function idTokenForSub(email: string, sub: string): Promise<string> {
    const nonce = (await client().post("/api/v1/auth/oidc/google/nonce", {})).body.data.nonce as string;
    return sim.mintIdToken({ audience: shop.clientId, email, nonce, sub });
  }

  /** Signed by a key of the test's own, under the kid the simulator publishes: the signature cannot check. */
  async function forgedToken(email: string, nonce: string): Promise<string> {
    const genuine = await sim.mintIdToken({ audience: shop.clientId, email, nonce });
    const { kid } = JSON.parse(Buffer.from(genuine.split(".")[0]!, "base64url").toString()) as { kid: string };
    const { privateKey, publicKey } = await generateKeyPair("RS256");
    expect((await exportJWK(publicKey)).kty).toBe("RSA");
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ email, email_verified: true, nonce })
      .setProtectedHeader({ alg: "RS256", kid })
      .setIssuer(sim.issuer)
      .setAudience(shop.clientId)
      .setSubject(sim.subjectOf(email))
      .setIssuedAt(now)
      .setExpirationTime(now + 600)
      .sign(privateKey);
  }

  async function turnOnTwoFactor(accessToken: string): Promise<string> {
    const setup = await client().post("/api/v1/auth/otp/setup", undefined, accessToken);
    expect(setup.status, JSON.stringify(setup.body)).toBe(200);
    const secret = setup.body.data.secret as string;
    const verify = await client().post("/api/v1/auth/otp/verify", { code: totpAt(secret, clock.now()) }, accessToken);
    expect(verify.status, JSON.stringify(verify.body)).toBe(200);
    return secret;
  }
});
