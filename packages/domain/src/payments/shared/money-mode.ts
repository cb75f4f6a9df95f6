/**
 * Whose money a Daraja request moves (docs/test-mode.md): the object it pays, queries or refunds (an
 * intent, a payment, a refund, a key's context), whose `livemode` false sends it to the simulated
 * provider, never to Daraja.
 */
export interface MoneyMode {
  livemode: boolean;
}

/** The mode of the flows that are live money only (C2B, Pull, QR, balance, payouts: docs/test-mode.md#live-only). */
export const liveMoney: MoneyMode = { livemode: true };
