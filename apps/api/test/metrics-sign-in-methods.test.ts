/**
 * mteja_auth_logins_total counts every way to sign in by its `step` (docs/operations.md#metrics): an SMS
 * code (phone/verify), a passkey (passkeys/login/verify) and Google (the ID-token flow and the redirect
 * flow's callback, whose failures return to the app as ?error=<CODE>), each by outcome as password and
 * otp are counted.
 */
import { describe, expect } from "vitest";
import { SoftwareAuthenticator } from "@mteja/test-support/software-authenticator";
import { it } from "./support/fixture.js";
import { registerUser, uniqueEmail } from "./support/app.js";
import { skipThisTarget } from "./support/database.js";
import { demoPage, finishAtCallback, idTokenWithNonce, signInWithGoogle, throughGoogle } from "./support/google.js";
import { googleTests } from "./support/google-tests.js";
import { sample } from "./support/metrics.js";
import { uniquePhone } from "./support/sms.js";
import { waitFor } from "./support/wait.js";

const metricsToken = "metrics-token-0123456789";
const appUrl = "https://duka.example.co.ke";
const google = await googleTests({ METRICS_TOKEN: metricsToken, APP_URL: appUrl });
const { sim, client } = google;

describe.skipIf(skipThisTarget)("sign-in metrics by method", () => {
  google.hooks();

  const scrape = async () => {
    const res = await fetch(`${google.t.url}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } });
    expect(res.status).toBe(200);
    return res.text();
  };
  const count = (text: string, step: string, outcome: string) => sample(text, "mteja_auth_logins_total", { step, outcome }) ?? 0;

  it("counts SMS, passkey and Google sign-ins by step and outcome", async () => {
    const before = await scrape();

    // SMS: a wrong code, then the right one (the code read from the outbox: no SMS provider here).
    const phone = uniquePhone();
    expect((await client().post("/api/v1/auth/phone/start", { phone: phone.local })).status).toBe(200);
    // phone/start answers before the text is written (the same answer and time, whoever asks).
    const outbox = () => google.t.deps.db.unscoped("test").smsOutbox;
    const text = await waitFor(() => outbox().findFirst({ where: { toPhone: phone.international } }));
    const code = /\b(\d{6})\b/.exec(text.body!)![1]!;
    const wrong = code === "000000" ? "111111" : "000000";
    expect((await client().post("/api/v1/auth/phone/verify", { phone: phone.local, code: wrong })).status).toBe(401);
    expect((await client().post("/api/v1/auth/phone/verify", { phone: phone.local, code })).status).toBe(200);

    // A passkey: a sign-in, then the same assertion replayed.
    const user = await registerUser(client());
    const authenticator = new SoftwareAuthenticator(appUrl);
    const options = await client().post("/api/v1/auth/passkeys/register/options", {}, user.accessToken);
    expect((await client().post("/api/v1/auth/passkeys/register/verify", { response: authenticator.create(options.body.data) }, user.accessToken)).status).toBe(201);
    const assertion = authenticator.get((await client().post("/api/v1/auth/passkeys/login/options", {})).body.data);
    expect((await client().post("/api/v1/auth/passkeys/login/verify", { response: assertion })).status).toBe(200);
    expect((await client().post("/api/v1/auth/passkeys/login/verify", { response: assertion })).status).toBe(401);

    // Google: the ID-token flow (a sign-in, its token replayed) and the redirect flow (a sign-in, a bad state).
    const idToken = await idTokenWithNonce(google.t, sim, google.shop, { email: uniqueEmail("metrics-onetap") });
    expect((await client().post("/api/v1/auth/oidc/google/id-token", { id_token: idToken })).status).toBe(200);
    expect((await client().post("/api/v1/auth/oidc/google/id-token", { id_token: idToken })).status).toBe(401);
    expect((await signInWithGoogle(google.t, google.shop, { email: uniqueEmail("metrics-redirect") })).location).toBe(demoPage);
    const trip = await throughGoogle(google.t, google.shop, { email: uniqueEmail("metrics-state") });
    const tampered = new URL(trip.callbackUrl);
    tampered.searchParams.set("state", "x".repeat(43));
    expect((await finishAtCallback(google.t, trip, tampered.href)).location).toBe(`${demoPage}?error=INVALID_TOKEN`);

    const after = await scrape();
    const delta = (step: string, outcome: string) => count(after, step, outcome) - count(before, step, outcome);
    expect({
      sms: [delta("sms", "success"), delta("sms", "invalid_otp")],
      passkey: [delta("passkey", "success"), delta("passkey", "invalid_credentials")],
      google: [delta("google", "success"), delta("google", "invalid_token")],
    }).toEqual({ sms: [1, 1], passkey: [1, 1], google: [2, 2] });
    // None of them is counted as a password sign-in.
    expect(delta("password", "success")).toBe(0);
  });
});
