/**
 * The token each callback URL carries (docs/mpesa.md#callback-tokens). A shop's callback URLs carry
 * its own token, HMAC-SHA256(MOMO_CALLBACK_SECRET, "momo-callback:" + tenant id) in hex, and name the
 * shop (`tenant=`, its id in hex), so the token is checked before anything is read or stored and a URL
 * one shop leaks authenticates nothing of another's. Hex, like the `ref=` of a prompt: it can never
 * spell a word Daraja refuses in URLs.
 *
 * The old form, the secret itself, is still accepted from URLs sent before tenant tokens (a row's
 * `callback_token_form` says which form its URL carried; a tenant's registered C2B URLs, until they are
 * registered again); which row a callback may touch is checked where it is applied
 * (callback-authority.ts).
 */
import { createHmac } from "node:crypto";
import { secretMatcher } from "../../shared/secrets.js";

export const TOKEN_PARAMETER = "token";
export const TENANT_PARAMETER = "tenant";

/** Whom a callback's token speaks for: one tenant (its own token), or the shared secret of the old form. */
export type CallbackAuthority = { form: "tenant"; tenantId: string } | { form: "shared" };

export interface CallbackTokens {
  /** The tenant's token. */
  tokenFor(tenantId: string): string;
  /** Whom the token authenticates, given the URL's `tenant=` as received; undefined: nobody (403). */
  authenticate(tenantParameter: string | undefined, token: string | undefined): CallbackAuthority | undefined;
}

/** Derived tokens kept per tenant; past this many the cache starts afresh (tenants are few, ids are checked). */
const CACHE_LIMIT = 10_000;

const tenantIdPattern = /^[a-z0-9][a-z0-9-]{1,62}$/;

/** The tokens of MOMO_CALLBACK_SECRET; built once by the composition root, which owns its cache. */
export function createCallbackTokens(secret: string): CallbackTokens {
  const derived = new Map<string, { token: string; matches: (presented: string) => boolean }>();
  const tenantToken = (tenantId: string) => {
    let known = derived.get(tenantId);
    if (known === undefined) {
      const token = createHmac("sha256", secret).update(`momo-callback:${tenantId}`).digest("hex");
      known = { token, matches: secretMatcher(token) };
      if (derived.size >= CACHE_LIMIT) derived.clear();
      derived.set(tenantId, known);
    }
    return known;
  };
  const sharedMatches = secretMatcher(secret);
  return {
    tokenFor: (tenantId) => tenantToken(tenantId).token,
    authenticate(tenantParameter, token) {
      if (token === undefined) return undefined;
      const tenantId = tenantFromParameter(tenantParameter);
      if (tenantId !== undefined && tenantToken(tenantId).matches(token)) return { form: "tenant", tenantId };
      return sharedMatches(token) ? { form: "shared" } : undefined;
    },
  };
}

/** The tenant id a callback URL's `tenant=` carries; undefined when absent or not a tenant id in hex. */
export function tenantFromParameter(value: string | undefined): string | undefined {
  if (!value || !/^(?:[0-9a-f]{2}){2,63}$/.test(value)) return undefined;
  const id = Buffer.from(value, "hex").toString("utf8");
  return tenantIdPattern.test(id) ? id : undefined;
}

/** `url` (a callback address of the settings) with the tenant's token and name; null when either is missing. */
export function tenantCallbackUrl(tokens: CallbackTokens | null, url: string | null, tenantId: string): string | null {
  if (!tokens || !url) return null;
  const parsed = new URL(url);
  parsed.searchParams.set(TOKEN_PARAMETER, tokens.tokenFor(tenantId));
  parsed.searchParams.set(TENANT_PARAMETER, Buffer.from(tenantId, "utf8").toString("hex"));
  return parsed.toString();
}
