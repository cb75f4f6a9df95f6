/**
 * The domain's procedures called in process (appRouter's createCaller) on deps assembled once per test
 * file: an embedded database (PGlite, migrated, default tenant), the fake Clock and Random, real
 * tokens and tenants, password hashing without argon2id's cost, and M-Pesa not configured. A caller
 * is one client: it keeps the refresh cookie the service sets, as a browser would.
 */
import { randomBytes } from "node:crypto";
import { openEmbeddedTestDatabase } from "@mteja/test-support/embedded-database";
import {
  appRouter,
  createAccessTokens,
  createCallerFactory,
  createDataCipher,
  createPasswordHasher,
  createPaymentEvents,
  createRefreshSuccessor,
  createSigningKeyRing,
  createStatusStreamSlots,
  createTenantDirectory,
  ensureDefaultTenant,
  loadStoredKeySet,
  tokenDefaults,
  unlimited,
  unobservedEvents,
  passwordRangesOff,
  captchaOff,
  type Deps,
  type PasswordHashing,
  type Random,
  type RequestInfo,
} from "../../src/index.js";
import { fakeClock, sequenceRandom } from "./fake-ports.js";

export const defaultTenantId = "default";

const silent = { info() {}, warn() {}, error() {}, debug() {} };

const createCaller = createCallerFactory(appRouter);

/** Hashing without argon2id's cost (apps/api provides the real one): these tests are about what the procedures do with a hash. */
const plainHashing: PasswordHashing = {
  hash: async (password) => `plain:${password}`,
  verify: async (hash, password) => hash === `plain:${password}`,
};

export interface ServiceDeps {
  deps: Deps;
  clock: ReturnType<typeof fakeClock>;
  close(): Promise<void>;
}

/** `random`: the sequence by default; a file that opens many sessions (its tokens would repeat) passes a real one. */
export async function createServiceDeps(options: { random?: Random } = {}): Promise<ServiceDeps> {
  const db = await openEmbeddedTestDatabase();
  await db.migrate();
  await ensureDefaultTenant(db, defaultTenantId, "Default shop");
  const clock = fakeClock();
  const random = options.random ?? sequenceRandom();
  const now = () => clock.now();
  const dataKey = randomBytes(32);
  const cipher = createDataCipher(dataKey, random);
  const keys = await createSigningKeyRing({
    load: () => loadStoredKeySet(db, cipher, now()),
    now,
    maxAgeSeconds: tokenDefaults.signingKeysMaxAgeSeconds,
    unknownKidReloadSeconds: tokenDefaults.unknownKidReloadSeconds,
    onReloadError: () => {},
  });
  const config: Deps["config"] = {
    nodeEnv: "test",
    defaultTenantId,
    appUrl: "http://shop.test",
    publicUrl: undefined,
    cookieSecure: false,
    adminApiKey: undefined,
    adminApiKeyLoopbackOnly: false,
    rateLimits: false,
    // The settings' defaults (apps/api/src/settings.ts).
    accessTokenTtlSeconds: 15 * 60,
    refreshIdleSeconds: 30 * 24 * 3600,
    refreshAbsoluteSeconds: 90 * 24 * 3600,
    refreshReuseGraceSeconds: 10,
    issuer: "mteja-test",
    audience: "mteja-test",
    stepUpWindowSeconds: 300,
    phoneCodeTtlSeconds: 600,
    smsCallbackSecret: null,
  };
  const deps: Deps = {
    db,
    config,
    clock,
    random,
    cipher,
    refreshSuccessor: createRefreshSuccessor(dataKey),
    tokens: createAccessTokens({ keys, issuer: config.issuer, audience: config.audience, ttlSeconds: config.accessTokenTtlSeconds, now, random, verifiedTokensKept: 100 }),
    passwords: await createPasswordHasher({ hashing: plainHashing, clock, concurrency: 2, maxWaitMs: 60_000, shedPauseMs: 0 }),
    tenants: createTenantDirectory(db, { ttlMs: 30_000, clock }),
    limiter: unlimited,
    nudgeSms: () => {},
    nudgeMail: () => {},
    // No Google here: its tests run through HTTP against the Google simulator (apps/api/test/google-*.test.ts).
    google: {
      authorizationUrl: () => Promise.reject(new Error("no Google in service tests")),
      redeem: () => Promise.reject(new Error("no Google in service tests")),
      checkIdToken: () => Promise.reject(new Error("no Google in service tests")),
    },
    logger: silent,
    events: unobservedEvents,
    passwordRanges: passwordRangesOff,
    captcha: captchaOff,
    // REPORT_BATCH_SIZE's default.
    reports: { batchSize: 1000 },
    daraja: {
      darajaFor: () => null,
      hasPayoutAccount: () => false,
      b2cEnabled: false,
      settings: {
        callbackUrls: {},
        reconcileAfterSeconds: 60,
        promptInFlightSeconds: 30,
        unknownPromptWindowSeconds: 300,
        callbackAllowedIps: [],
      platformShortcode: null,
      pullIntervalSeconds: 0,
      },
      callbackTokens: null,
      events: createPaymentEvents(),
      statusStreams: createStatusStreamSlots(),
    },
    webhooks: { urlProblem: async () => null, nudge: () => {} },
  };
  return { deps, clock, close: () => db.close() };
}

/** What one client sends with every call: its tenant header, its bearer token, its cookies. */
export interface Client {
  tenantHeader: string | undefined;
  accessToken: string | undefined;
  cookies: Map<string, string>;
  call: ReturnType<typeof createCaller>;
}

export function clientOf(deps: Deps, options: { tenant?: string | undefined } = {}): Client {
  const client: Client = {
    tenantHeader: "tenant" in options ? options.tenant : defaultTenantId,
    accessToken: undefined,
    cookies: new Map(),
    call: undefined as unknown as Client["call"],
  };
  client.call = createCaller({ deps, request: requestOf(client) });
  return client;
}

/** The request a client's calls carry: its tenant header, its token, its cookies (read at each call). */
export function requestOf(client: Client): RequestInfo {
  let accepted = false;
  return {
    get tenantHeader() {
      return client.tenantHeader;
    },
    get authorization() {
      return client.accessToken ? `Bearer ${client.accessToken}` : undefined;
    },
    idempotencyKey: undefined,
    ip: "203.0.113.7",
    localRequest: false,
    userAgent: "service-test",
    getCookie: (name) => client.cookies.get(name),
    setCookie: (name, value) => void client.cookies.set(name, value),
    clearCookie: (name) => void client.cookies.delete(name),
    setHeader: () => {},
    markAccepted: () => {
      accepted = true;
    },
    isAccepted: () => accepted,
  };
}

/** A client signed in as a newly registered customer of the default tenant. */
export async function signedInCustomer(deps: Deps, email: string): Promise<Client> {
  const client = clientOf(deps);
  const registered = await client.call.auth.register({ name: "Wanjiku Kamau", email, password: "correct horse battery" });
  client.accessToken = registered.data.access_token;
  return client;
}
