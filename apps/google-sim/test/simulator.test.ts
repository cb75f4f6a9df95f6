/**
 * The simulator is a real OpenID provider: discovery, a JWKS that verifies its ID tokens, and the
 * authorization-code flow with PKCE through its sign-in page.
 */
import { createHash } from "node:crypto";
import { createRemoteJWKSet, decodeJwt, jwtVerify } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildGoogleSimulator, googleSimulatorDefaults } from "../src/index.js";

const client = { clientId: "shop.apps.test", clientSecret: "s3cret", redirectUris: ["http://127.0.0.1:9/callback"] };

describe("Google simulator", () => {
  const sim = buildGoogleSimulator();
  let issuer = "";
  beforeAll(async () => {
    issuer = await sim.listen({ host: "127.0.0.1", port: 0 });
    await sim.addClient(client);
  });
  afterAll(() => sim.close());

  it("publishes its discovery document and JWKS, which verify the tokens it mints", async () => {
    const discovery = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as Record<string, string>;
    expect(discovery.issuer).toBe(issuer);
    const token = await sim.mintIdToken({ audience: client.clientId, email: "Wanjiru@Example.com", nonce: "n-1" });
    const { payload } = await jwtVerify(token, createRemoteJWKSet(new URL(discovery.jwks_uri!)), { issuer, audience: client.clientId });
    expect(payload).toMatchObject({ email: "wanjiru@example.com", email_verified: true, nonce: "n-1", sub: sim.subjectOf("wanjiru@example.com") });
    expect(payload.sub).toMatch(/^\d{21}$/);
  });

  it("signs in through its page and answers a code for the PKCE verifier", async () => {
    const verifier = "v".repeat(50);
    const challenge = createHash("sha256").update(verifier).digest("base64url");
    const authorize = new URL(`${issuer}/auth`);
    for (const [name, value] of Object.entries({
      client_id: client.clientId, response_type: "code", scope: "openid email", redirect_uri: client.redirectUris[0]!,
      state: "st", nonce: "no", code_challenge: challenge, code_challenge_method: "S256",
    })) authorize.searchParams.set(name, value);
    const cookies = new Map<string, string>();
    const keep = (response: Response) => {
      for (const line of response.headers.getSetCookie()) {
        const [pair] = line.split(";");
        const [name, ...value] = pair!.split("=");
        cookies.set(name!, value.join("="));
      }
      return response;
    };
    const cookie = () => [...cookies].map(([name, value]) => `${name}=${value}`).join("; ");
    const go = async (url: string, init: RequestInit = {}) =>
      keep(await fetch(new URL(url, issuer), { ...init, redirect: "manual", headers: { ...init.headers, cookie: cookie() } }));

    let response = await go(authorize.href);
    expect(response.status).toBe(303);
    const page = await go(response.headers.get("location")!);
    expect(await page.text()).toContain("Email verified by Google");
    response = await go(`${response.headers.get("location")!}/login`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "email=amina%40example.com",
    });
    while (!response.headers.get("location")!.startsWith(client.redirectUris[0]!)) response = await go(response.headers.get("location")!);
    const back = new URL(response.headers.get("location")!);
    expect(back.searchParams.get("state")).toBe("st");

    const token = await fetch(`${issuer}/token`, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        authorization: `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString("base64")}`,
      },
      body: new URLSearchParams({ grant_type: "authorization_code", code: back.searchParams.get("code")!, redirect_uri: client.redirectUris[0]!, code_verifier: verifier }),
    });
    expect(token.status).toBe(200);
    const claims = decodeJwt(((await token.json()) as { id_token: string }).id_token);
    expect(claims).toMatchObject({ email: "amina@example.com", email_verified: false, nonce: "no", aud: client.clientId });
  });

  it("has a dev client id that looks like none of Google's", () => {
    expect(googleSimulatorDefaults.clientId.endsWith(".test")).toBe(true);
  });
});
