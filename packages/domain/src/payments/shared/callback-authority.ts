/**
 * Which rows a callback may touch (docs/mpesa.md#callback-tokens), a pure rule every apply path asks
 * once it has found the payment, payout, refund or C2B tenant the callback names: a tenant's token
 * only that tenant's rows; the shared secret (the old form) only rows whose callback URL carried it —
 * requests sent before tenant tokens, and C2B of a tenant whose URLs were not registered again since.
 * A callback refused here is recorded `rejected` and answered 403, like a wrong token.
 */
import type { CallbackAuthority } from "./callback-tokens.js";

/** What a callback names, as the rule reads it: its tenant, and the token form its URL carried. */
export interface CallbackTarget {
  tenantId: string;
  /** shared | tenant (payments, payouts, refunds: `callback_token_form`; C2B: the tenant's `c2b_callback_token_form`). */
  callbackTokenForm: string;
}

/** Why the callback may not touch `target`; undefined when it may. */
export function refusalOf(authority: CallbackAuthority, target: CallbackTarget): string | undefined {
  if (authority.form === "tenant") {
    return authority.tenantId === target.tenantId ? undefined : `wrong token: the callback URL's token is another shop's (${authority.tenantId})`;
  }
  return target.callbackTokenForm === "shared" ? undefined : "wrong token: MOMO_CALLBACK_SECRET itself (the old form) for a request sent with its shop's own token";
}

/** The authority a stored callback was received with (its `token_tenant_id`; null: the shared secret, or stored before tenant tokens). */
export function authorityOfStored(tokenTenantId: string | null): CallbackAuthority {
  return tokenTenantId === null ? { form: "shared" } : { form: "tenant", tenantId: tokenTenantId };
}
