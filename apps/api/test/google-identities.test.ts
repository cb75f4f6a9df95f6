/**
 * Linking and unlinking a Google account (docs/sign-in.md#linking) through HTTP on both databases,
 * against the Google simulator: link under step-up with an ID token carrying a nonce of the service;
 * a Google account linked elsewhere answers 409 IDENTITY_IN_USE; a link ends the other sessions and
 * is recorded; unlinking the last way in answers 409 LAST_SIGN_IN_METHOD; identities on GET me.
 */
import { describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import { registerUser, uniqueEmail } from "./support/app.js";
import { skipThisTarget } from "./support/database.js";
import { idTokenWithNonce } from "./support/google.js";
import { googleTests } from "./support/google-tests.js";

const window = 60;
const google = await googleTests({ STEP_UP_WINDOW_SECONDS: String(window) });
const { sim, clock, client } = google;

const linkPath = "/api/v1/auth/me/identities/google";

describe.skipIf(skipThisTarget)("linking a Google account", () => {
  google.hooks();
  const idToken = (email: string) => idTokenWithNonce(google.t, sim, google.shop, { email });

  it("links under a fresh session: 201, listed on GET me, other sessions ended, recorded; then signs in by Google", async () => {
    const user = await registerUser(client());
    const elsewhere = await client().post("/api/v1/auth/login", { email: user.email, password: user.password });
    expect(elsewhere.status).toBe(200);
    const googleEmail = uniqueEmail("gmail");
    const linked = await client().post(linkPath, { id_token: await idToken(googleEmail) }, user.accessToken);
    expect(linked.status, JSON.stringify(linked.body)).toBe(201);
    expect(linked.body.data).toEqual({ provider: "google", email: googleEmail, linked_at: expect.any(String) });
    const me = await client().get("/api/v1/auth/me", user.accessToken);
    expect(me.body.data.identities).toEqual([linked.body.data]);
    // A new way in: the other session is over, and the account's email is told.
    expect((await client().get("/api/v1/auth/me", elsewhere.body.data.access_token)).status).toBe(401);
    const notice = await google.t.deps.db.unscoped("test").mailOutbox.findFirstOrThrow({ where: { toAddress: user.email, kind: "googleLinked" } });
    expect(notice.subject).toBe(`A Google account was linked to your Shop ${google.shop.tenantId} account`);
    expect(notice.textBody).toContain("you were signed out on your other devices");
    const events = await client().get("/api/v1/auth/me/security-events", user.accessToken);
    expect(events.body.data.security_events).toContainEqual(expect.objectContaining({ type: "identity.linked", details: { provider: "google", sessions_ended: 1 } }));
    // Google now signs in to this account, whatever its own email.
    const signIn = await client().post("/api/v1/auth/oidc/google/id-token", { id_token: await idToken(googleEmail) });
    expect(signIn.body.data.user.id).toBe(user.id);
  });

  it("needs a fresh session (403 STEP_UP_REQUIRED), and then reauthenticate lets it through", async () => {
    const user = await registerUser(client());
    clock.advance(window + 1);
    const stale = await client().post(linkPath, { id_token: await idToken(uniqueEmail("stale")) }, user.accessToken);
    expect([stale.status, stale.body.error.code]).toEqual([403, "STEP_UP_REQUIRED"]);
    const fresh = await client().post("/api/v1/auth/reauthenticate", { password: user.password }, user.accessToken);
    expect(fresh.status).toBe(200);
    const linked = await client().post(linkPath, { id_token: await idToken(uniqueEmail("fresh")) }, user.accessToken);
    expect(linked.status).toBe(201);
  });

  it("answers 409 IDENTITY_IN_USE for a Google account linked to another account, or a second Google account", async () => {
    const googleEmail = uniqueEmail("taken");
    const first = await registerUser(client());
    expect((await client().post(linkPath, { id_token: await idToken(googleEmail) }, first.accessToken)).status).toBe(201);
    const second = await registerUser(client());
    const taken = await client().post(linkPath, { id_token: await idToken(googleEmail) }, second.accessToken);
    expect([taken.status, taken.body.error.code]).toEqual([409, "IDENTITY_IN_USE"]);
    const another = await client().post(linkPath, { id_token: await idToken(uniqueEmail("another")) }, first.accessToken);
    expect([another.status, another.body.error.code]).toEqual([409, "IDENTITY_IN_USE"]);
    expect((await client().get("/api/v1/auth/me", second.accessToken)).body.data.identities).toEqual([]);
  });

  it("refuses an ID token without a nonce of the service, or for another audience (401), and links nothing", async () => {
    const user = await registerUser(client());
    const email = uniqueEmail("nononce");
    const noNonce = await client().post(linkPath, { id_token: await sim.mintIdToken({ audience: google.shop.clientId, email }) }, user.accessToken);
    expect([noNonce.status, noNonce.body.error.code]).toEqual([401, "INVALID_TOKEN"]);
    const nonce = (await client().post("/api/v1/auth/oidc/google/nonce", {})).body.data.nonce as string;
    const foreign = await client().post(linkPath, { id_token: await sim.mintIdToken({ audience: "other.apps.googleusercontent.test", email, nonce }) }, user.accessToken);
    expect([foreign.status, foreign.body.error.code]).toEqual([401, "INVALID_TOKEN"]);
    expect((await client().get("/api/v1/auth/me", user.accessToken)).body.data.identities).toEqual([]);
  });

  it("unlinks under step-up; the last way in answers 409 LAST_SIGN_IN_METHOD", async () => {
    const user = await registerUser(client());
    expect((await client().post(linkPath, { id_token: await idToken(uniqueEmail("unlink")) }, user.accessToken)).status).toBe(201);
    clock.advance(window + 1);
    const stale = await client().request("DELETE", linkPath, { token: user.accessToken });
    expect([stale.status, stale.body.error.code]).toEqual([403, "STEP_UP_REQUIRED"]);
    expect((await client().post("/api/v1/auth/reauthenticate", { password: user.password }, user.accessToken)).status).toBe(200);
    const unlinked = await client().request("DELETE", linkPath, { token: user.accessToken });
    expect(unlinked.status, JSON.stringify(unlinked.body)).toBe(200);
    expect((await client().get("/api/v1/auth/me", user.accessToken)).body.data.identities).toEqual([]);
    const events = await client().get("/api/v1/auth/me/security-events", user.accessToken);
    expect(events.body.data.security_events).toContainEqual(expect.objectContaining({ type: "identity.unlinked", details: { provider: "google" } }));
    const again = await client().request("DELETE", linkPath, { token: user.accessToken });
    expect([again.status, again.body.error.code]).toEqual([404, "NOT_FOUND"]);

    // An account made by Google has no other way in.
    const onlyGoogle = await client().post("/api/v1/auth/oidc/google/id-token", { id_token: await idToken(uniqueEmail("only")) });
    const last = await client().request("DELETE", linkPath, { token: onlyGoogle.body.data.access_token });
    expect([last.status, last.body.error.code]).toEqual([409, "LAST_SIGN_IN_METHOD"]);
    expect((await client().get("/api/v1/auth/me", onlyGoogle.body.data.access_token)).body.data.identities).toHaveLength(1);
  });

  it("forgets the link when the account is erased: the same Google account then makes a new account", async () => {
    const user = await registerUser(client());
    const googleEmail = uniqueEmail("erased");
    expect((await client().post(linkPath, { id_token: await idToken(googleEmail) }, user.accessToken)).status).toBe(201);
    const erased = await client().request("DELETE", "/api/v1/auth/me", { token: user.accessToken, body: { password: user.password } });
    expect(erased.status, JSON.stringify(erased.body)).toBe(200);
    const again = await client().post("/api/v1/auth/oidc/google/id-token", { id_token: await idToken(googleEmail) });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body.data.user.id).not.toBe(user.id);
  });
});
