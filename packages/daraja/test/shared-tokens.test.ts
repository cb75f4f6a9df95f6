/**
 * The access token shared through an AccessTokenStore (src/oauth.ts): two clients ("instances") of one
 * app fetch one token between them, a client whose token was refused removes the shared one only if it
 * is still the one refused, and a failing store leaves each client its own token.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { accessTokenAccount, createDarajaClient, type AccessTokenStore, type DarajaClientConfig } from "../src/index.js";
import { SANDBOX, startFakeDaraja, type FakeDaraja } from "./fake-daraja.js";

let fake: FakeDaraja;
beforeEach(async () => {
  fake = await startFakeDaraja({ tokenDelayMs: 30 });
});
afterEach(async () => {
  await fake.close();
});

/** A store in memory, with the semantics of the Redis one (runtime/daraja-token-store.ts). */
function memoryStore() {
  const tokens = new Map<string, string>();
  const locks = new Set<string>();
  const store: AccessTokenStore = {
    read: async (account) => tokens.get(account) ?? null,
    write: async (account, token) => void tokens.set(account, token),
    discard: async (account, token) => {
      if (tokens.get(account) === token) tokens.delete(account);
    },
    lock: async (account) => {
      if (locks.has(account)) return null;
      locks.add(account);
      return async () => void locks.delete(account);
    },
  };
  return { store, tokens };
}

function client(overrides: Partial<DarajaClientConfig> = {}) {
  return createDarajaClient({
    baseUrl: fake.url,
    consumerKey: SANDBOX.consumerKey,
    consumerSecret: SANDBOX.consumerSecret,
    shortcode: SANDBOX.shortcode,
    passkey: SANDBOX.passkey,
    transactionType: "CustomerPayBillOnline",
    timeoutMs: 2_000,
    retryDelaysMs: [5, 5],
    ...overrides,
  });
}

const query = { checkoutRequestId: "ws_CO_1" };

describe("shared access tokens", () => {
  it("names the app by a hash of its base URL and consumer key", () => {
    const account = accessTokenAccount("https://api.safaricom.co.ke/", SANDBOX.consumerKey);
    expect(account).toBe(accessTokenAccount("https://api.safaricom.co.ke", SANDBOX.consumerKey));
    expect(account).not.toBe(accessTokenAccount("https://sandbox.safaricom.co.ke", SANDBOX.consumerKey));
    expect(account).toMatch(/^[0-9a-f]{32}$/);
  });

  it("fetches one token for two instances asking at once", async () => {
    const { store } = memoryStore();
    const [a, b] = [client({ tokenStore: store }), client({ tokenStore: store })];
    const results = await Promise.all([a, b, a, b].map((daraja) => daraja.stkQuery(query)));
    expect(results.map((result) => result.status)).toEqual(Array(4).fill("SUCCESS"));
    expect(fake.tokenRequests).toBe(1);
    expect(fake.rejected).toEqual([]);
  });

  it("keeps the fresh token another instance shared when the one it replaced is refused", async () => {
    const { store, tokens } = memoryStore();
    const b = client({ tokenStore: store });
    let replaceFirst = false;
    // Instance A reads the token; before its request arrives, B fetches a new one (the old one expired in the store).
    const slowA: AccessTokenStore = {
      ...store,
      read: async (account) => {
        const token = await store.read(account);
        if (replaceFirst) {
          replaceFirst = false;
          tokens.clear();
          await b.stkQuery(query);
        }
        return token;
      },
    };
    const a = client({ tokenStore: slowA });
    await a.stkQuery(query);
    const [shared] = tokens.values();
    replaceFirst = true;

    await expect(a.stkQuery(query)).resolves.toMatchObject({ status: "SUCCESS" });
    expect(fake.rejected).toHaveLength(1);
    // Without the comparison A would have removed B's token and fetched a third one.
    expect(fake.tokenRequests).toBe(2);
    expect([...tokens.values()]).toHaveLength(1);
    expect([...tokens.values()]).not.toEqual([shared]);
  });

  it("keeps its own token while the store fails, with one warning", async () => {
    const failing: AccessTokenStore = {
      read: () => Promise.reject(new Error("Redis is unreachable")),
      write: () => Promise.reject(new Error("Redis is unreachable")),
      discard: () => Promise.reject(new Error("Redis is unreachable")),
      lock: () => Promise.reject(new Error("Redis is unreachable")),
    };
    const warnings: object[] = [];
    const daraja = client({ tokenStore: failing, logger: { debug() {}, warn: (details) => warnings.push(details) } });
    for (let i = 0; i < 3; i++) await expect(daraja.stkQuery(query)).resolves.toMatchObject({ status: "SUCCESS" });
    expect(fake.tokenRequests).toBe(1);
    expect(warnings).toEqual([{ reason: "Redis is unreachable" }]);
  });
});
