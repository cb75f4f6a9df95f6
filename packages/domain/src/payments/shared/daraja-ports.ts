/**
 * What the payments area needs from the composition root: Daraja clients, the callback addresses
 * Daraja is told to call, the reconciliation schedule and the in-process status events. The reconciler
 * is not among them: it is built from these deps (createReconciler), not the other way round.
 */
import type { DarajaClient } from "@mteja/daraja";
import type { Tenant } from "../../shared/tenant.js";
import type { CallbackTokens } from "./callback-tokens.js";
import type { PaymentEvents } from "./payment-events.js";
import type { MoneyMode } from "./money-mode.js";
import type { StatusStreamSlots } from "./status-stream-slots.js";

export interface DarajaCallbackSettings {
  /**
   * Where Daraja calls back, by callback kind (payments/flows.ts): the settings' own addresses, without
   * a token (each request gives Daraja its tenant's: callbackUrlFor of flow.ts). Only the kinds of the
   * flows configured: none when M-Pesa is not, no B2C ones when B2C is not.
   */
  callbackUrls: Readonly<Record<string, string>>;
  /** A payment still PENDING this long after it was created is reconciled with an STK query. */
  reconcileAfterSeconds: number;
  /**
   * The longest an STK push or a B2C request can wait for Daraja's answer (the Daraja client's worst
   * case, derived from its timing). A retry with the same Idempotency-Key waits at most this long for
   * the first request's answer; a callback for an unknown CheckoutRequestID is kept while a prompt is
   * in flight.
   */
  promptInFlightSeconds: number;
  /**
   * MOMO_UNKNOWN_PROMPT_WINDOW_SECONDS: a payment whose push had an unknown outcome is matched to a
   * callback (phone, amount, reference) for this long after it was created, then becomes TIMEOUT.
   */
  unknownPromptWindowSeconds: number;
  /** Source addresses Safaricom calls back from. Empty: not checked. Checked for logging only. */
  callbackAllowedIps: readonly string[];
  /** MOMO_SHORTCODE: the default tenant's short code for C2B. Null: M-Pesa is not configured. */
  platformShortcode: string | null;
  /**
   * MOMO_PULL_INTERVAL_SECONDS: the sweep pulls each short code registered for Pull Transactions this
   * often (docs/mpesa.md#recovery); 0: never (the on-demand pull still works).
   */
  pullIntervalSeconds: number;
}

export interface DarajaPorts {
  /**
   * The Daraja client for a tenant's account (tenants/daraja-accounts.ts: its own credentials, or the
   * platform's when it has none) for live money; for test money (`of.livemode` false) the simulated
   * provider. Null when M-Pesa is not configured or the tenant has no usable account.
   */
  darajaFor(tenant: Pick<Tenant, "id" | "settings">, of: MoneyMode): DarajaClient | null;
  /** Whether the tenant has a B2C account to pay out from (see tenants/daraja-accounts.ts). */
  hasPayoutAccount(tenant: Pick<Tenant, "id" | "settings">): boolean;
  /** Whether B2C (and Transaction Status) can run: Daraja and the B2C callback addresses are configured. */
  b2cEnabled: boolean;
  settings: DarajaCallbackSettings;
  /** The tokens of MOMO_CALLBACK_SECRET, per tenant (docs/mpesa.md#callback-tokens). Null: M-Pesa is not configured, and every callback is rejected. */
  callbackTokens: CallbackTokens | null;
  events: PaymentEvents;
  /** The open payments.onStatus subscriptions per user, in this instance. */
  statusStreams: StatusStreamSlots;
}
