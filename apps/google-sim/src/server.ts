/// <reference path="./oidc-provider.d.ts" />
/**
 * A local stand-in for Google's OpenID provider (docs/sign-in.md#sign-in-with-google): a real OpenID
 * Connect provider (`oidc-provider`) with discovery, the authorization-code flow with PKCE, signed ID
 * tokens and a JWKS, and a sign-in page where any email signs in ("verified" or not). For the dev
 * start and the tests only: nothing that ships imports it. Control routes for tests: `POST /sim/id-token`
 * mints an ID token with the provider's own key (as One Tap would hand the app).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";
import { exportJWK, generateKeyPair, SignJWT, type JWK } from "jose";
import type Provider from "oidc-provider";
import type { Configuration } from "oidc-provider";
import { loadProvider } from "./quiet-provider.js";
import { accountOf, subjectOf, type SimAccount } from "./accounts.js";
import { googleSimulatorDefaults } from "./defaults.js";
import { loginPage } from "./login-page.js";
import { createSimStore } from "./store.js";

export interface SimClient {
  clientId: string;
  clientSecret: string;
  /** The callback addresses the client may be sent back to (the service's /api/v1/auth/oidc/google/callback). */
  redirectUris: string[];
}

/** What a minted ID token says; `nonce`, `expiresInSeconds` and `issuer` let a test make a bad one. */
export interface MintRequest {
  audience: string;
  email: string;
  emailVerified?: boolean;
  nonce?: string;
  sub?: string;
  /** Negative for a token that has expired. */
  expiresInSeconds?: number;
  issuer?: string;
}

export interface GoogleSimulator {
  /** The issuer, once listening (OIDC_GOOGLE_ISSUER). */
  readonly issuer: string;
  listen(opts: { host: string; port: number }): Promise<string>;
  addClient(client: SimClient): Promise<void>;
  mintIdToken(request: MintRequest): Promise<string>;
  subjectOf(email: string): string;
  close(): Promise<void>;
}

interface SigningKey {
  privateJwk: JWK & { kid: string };
  sign(claims: Record<string, unknown>, header: { kid: string }): Promise<string>;
}

async function createSigningKey(): Promise<SigningKey> {
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const kid = randomBytes(8).toString("hex");
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: "RS256", use: "sig" };
  return {
    privateJwk,
    sign: (claims, header) => new SignJWT(claims).setProtectedHeader({ alg: "RS256", typ: "JWT", kid: header.kid }).sign(privateKey),
  };
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => {
      body += chunk;
      if (body.length > 64 * 1024) request.destroy(new Error("body too large"));
    });
    request.on("end", () => resolve(body));
    request.on("error", reject);
  });
}

function forgetSession(request: IncomingMessage): void {
  const kept = (request.headers.cookie ?? "")
    .split(";")
    .map((pair) => pair.trim())
    .filter((pair) => pair !== "" && !pair.startsWith("_session"));
  if (kept.length) request.headers.cookie = kept.join("; ");
  else delete request.headers.cookie;
}

function answerJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

export function buildGoogleSimulator(options: { logger?: (line: string) => void } = {}): GoogleSimulator {
  const store = createSimStore();
  const accounts = new Map<string, SimAccount>();
  let provider: Provider | undefined;
  let key: SigningKey | undefined;
  let issuer = "";

  const configuration = (signingKey: SigningKey): Configuration => ({
    adapter: (model: string) => store.adapter(model),
    jwks: { keys: [signingKey.privateJwk] },
    cookies: { keys: [randomBytes(32).toString("base64url")] },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    scopes: ["openid", "email", "profile"],
    // As Google: the email claims are in the ID token itself, not only at userinfo.
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: false } },
    pkce: { required: () => true },
    ttl: { Interaction: 600, Session: 3600, Grant: 600, AuthorizationCode: 60, AccessToken: 600, IdToken: 3600 },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    findAccount: (_ctx, sub) => {
      const account = accounts.get(sub);
      return account ? { accountId: sub, claims: () => ({ ...account }) } : undefined;
    },
    renderError: (ctx, out) => {
      ctx.type = "text/plain";
      ctx.body = `Google simulator: ${out.error}${out.error_description ? ` (${out.error_description})` : ""}`;
    },
  });

  async function interaction(request: IncomingMessage, response: ServerResponse, url: URL): Promise<boolean> {
    const match = /^\/interaction\/([\w-]+)(\/login)?$/.exec(url.pathname);
    if (!match || !provider) return false;
    const details = await provider.interactionDetails(request, response);
    if (request.method === "GET" && !match[2]) {
      const hint = typeof details.params.login_hint === "string" ? details.params.login_hint : "";
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(loginPage(details.uid, String(details.params.client_id), hint));
      return true;
    }
    if (request.method === "POST" && match[2]) {
      const form = new URLSearchParams(await readBody(request));
      const account = accountOf(form.get("email") ?? "", form.get("verified") === "1");
      accounts.set(account.sub, account);
      const grant = new provider.Grant({ accountId: account.sub, clientId: String(details.params.client_id) });
      grant.addOIDCScope(String(details.params.scope ?? "openid"));
      const grantId = await grant.save();
      await provider.interactionFinished(request, response, { login: { accountId: account.sub }, consent: { grantId } }, { mergeWithLastSubmission: false });
      return true;
    }
    return false;
  }

  async function mint(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const body = JSON.parse(await readBody(request)) as MintRequest;
    answerJson(response, 200, { id_token: await sim.mintIdToken(body) });
  }

  const server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://sim");
    const handled = (async () => {
      if (url.pathname === "/sim/id-token" && request.method === "POST") return mint(request, response).then(() => true);
      return interaction(request, response, url);
    })();
    handled
      .then((done) => {
        if (done) return;
        if (!provider) return answerJson(response, 503, { error: "not listening yet" });
        options.logger?.(`${request.method} ${url.pathname}`);
        // Every sign-in shows the page (unlike Google, which remembers who signed in), so a developer
        // or a test can be anyone each time: a new authorization request never sees the last session.
        if (url.pathname === "/auth") forgetSession(request);
        return provider.callback()(request, response);
      })
      .catch((error: unknown) => {
        if (!response.headersSent) answerJson(response, 400, { error: error instanceof Error ? error.message : "failed" });
      });
  });

  const sim: GoogleSimulator = {
    get issuer() {
      return issuer;
    },
    async listen({ host, port }) {
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, host, () => resolve());
      });
      const address = server.address() as AddressInfo;
      issuer = `http://${host}:${address.port}`;
      key = await createSigningKey();
      const OpenIdProvider = await loadProvider();
      provider = new OpenIdProvider(issuer, configuration(key));
      return issuer;
    },
    async addClient(client) {
      await store.adapter("Client").upsert(client.clientId, {
        client_id: client.clientId,
        client_secret: client.clientSecret,
        redirect_uris: client.redirectUris,
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
      });
    },
    async mintIdToken(request) {
      if (!key) throw new Error("the simulator is not listening");
      const now = Math.floor(Date.now() / 1000);
      const account = accountOf(request.email, request.emailVerified ?? true);
      const claims: Record<string, unknown> = {
        iss: request.issuer ?? issuer,
        aud: request.audience,
        azp: request.audience,
        sub: request.sub ?? account.sub,
        email: account.email,
        email_verified: account.email_verified,
        name: account.name,
        iat: now,
        exp: now + (request.expiresInSeconds ?? googleSimulatorDefaults.idTokenSeconds),
      };
      if (request.nonce !== undefined) claims.nonce = request.nonce;
      return key.sign(claims, { kid: key.privateJwk.kid });
    },
    subjectOf,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return sim;
}
