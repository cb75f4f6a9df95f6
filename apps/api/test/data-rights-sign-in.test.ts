/**
 * The data rights over the newer ways to sign in (docs/data-rights.md), through HTTP on both databases:
 * the export lists the account's passkeys (as GET /passkeys shows them: never the key, counter or
 * credential id) and its linked Google accounts (provider, Google's subject, email, linked_at); an
 * erasure deletes both, so neither signs in to anything afterwards.
 */
import { describe, expect } from "vitest";
import { SoftwareAuthenticator } from "@mteja/test-support/software-authenticator";
import { it } from "./support/fixture.js";
import { registerUser, trpcClient, uniqueEmail } from "./support/app.js";
import { skipThisTarget } from "./support/database.js";
import { idTokenWithNonce } from "./support/google.js";
import { googleTests } from "./support/google-tests.js";
import { step } from "./support/two-factor.js";

const appUrl = "https://duka.example.co.ke";
const google = await googleTests({ APP_URL: appUrl });
const { sim, clock, client } = google;

describe.skipIf(skipThisTarget)("data rights over passkeys and linked Google accounts", () => {
  google.hooks();

  /** A customer with a passkey (used once to sign in) and a linked Google account. */
  async function customerWithEverything() {
    const user = await registerUser(client());
    const authenticator = new SoftwareAuthenticator(appUrl);
    const options = await client().post("/api/v1/auth/passkeys/register/options", {}, user.accessToken);
    const registered = await client().post("/api/v1/auth/passkeys/register/verify", { response: authenticator.create(options.body.data), name: "Simu yangu" }, user.accessToken);
    expect(registered.status, JSON.stringify(registered.body)).toBe(201);
    clock.advance(step);
    const signInOptions = await client().post("/api/v1/auth/passkeys/login/options", {});
    const signedIn = await client().post("/api/v1/auth/passkeys/login/verify", { response: authenticator.get(signInOptions.body.data) });
    expect(signedIn.status, JSON.stringify(signedIn.body)).toBe(200);
    const googleEmail = uniqueEmail("export");
    const linked = await client().post("/api/v1/auth/me/identities/google", { id_token: await idTokenWithNonce(google.t, sim, google.shop, { email: googleEmail }) }, user.accessToken);
    expect(linked.status, JSON.stringify(linked.body)).toBe(201);
    return { user, authenticator, googleEmail, passkeyId: registered.body.data.id as string, registeredAt: registered.body.data.created_at as string, linked: linked.body.data };
  }

  it("exports the passkeys (no key material) and the linked Google accounts, over REST and tRPC", async () => {
    const { user, googleEmail, passkeyId, registeredAt, linked } = await customerWithEverything();
    const exported = await client().get("/api/v1/auth/me/export", user.accessToken);
    expect(exported.status, JSON.stringify(exported.body)).toBe(200);
    const data = exported.body.data;
    expect(data.passkeys).toEqual([{ id: passkeyId, name: "Simu yangu", created_at: registeredAt, last_used_at: clock.now().toISOString() }]);
    expect(data.identities).toEqual([{ provider: "google", subject: sim.subjectOf(googleEmail), email: googleEmail, linked_at: linked.linked_at }]);
    // The stored key, its counter and the credential id stay out of the file.
    const row = await google.t.deps.db.unscoped("test").passkey.findUniqueOrThrow({ where: { id: passkeyId } });
    expect(JSON.stringify(data)).not.toContain(row.publicKey);
    expect(JSON.stringify(data)).not.toContain(row.credentialId);
    const trpc = trpcClient(google.t.url, () => ({ "x-tenant-id": google.shop.tenantId, authorization: `Bearer ${user.accessToken}` }));
    const overTrpc = await trpc.dataRights.exportMyData.query();
    expect(overTrpc.data.passkeys).toEqual(data.passkeys);
    expect(overTrpc.data.identities).toEqual(data.identities);
  });

  it("an account with neither exports empty lists", async () => {
    const user = await registerUser(client());
    const data = (await client().get("/api/v1/auth/me/export", user.accessToken)).body.data;
    expect([data.passkeys, data.identities]).toEqual([[], []]);
  });

  it("erasure deletes the passkeys and the links: neither signs in afterwards", async () => {
    const { user, authenticator, googleEmail } = await customerWithEverything();
    const erased = await client().request("DELETE", "/api/v1/auth/me", { token: user.accessToken, body: { password: user.password } });
    expect(erased.status, JSON.stringify(erased.body)).toBe(200);
    const db = google.t.deps.db.unscoped("test");
    expect(await db.passkey.count({ where: { userId: user.id } })).toBe(0);
    expect(await db.userIdentity.count({ where: { userId: user.id } })).toBe(0);
    const options = await client().post("/api/v1/auth/passkeys/login/options", {});
    const byPasskey = await client().post("/api/v1/auth/passkeys/login/verify", { response: authenticator.get(options.body.data) });
    expect([byPasskey.status, byPasskey.body.error?.code]).toEqual([401, "INVALID_CREDENTIALS"]);
    const byGoogle = await client().post("/api/v1/auth/oidc/google/id-token", { id_token: await idTokenWithNonce(google.t, sim, google.shop, { email: googleEmail }) });
    expect(byGoogle.status).toBe(200);
    expect(byGoogle.body.data.user.id).not.toBe(user.id);
  });
});
