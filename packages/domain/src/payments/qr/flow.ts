/**
 * Dynamic QR in the flow registry (payments/flows.ts; docs/payment-intents.md#pay-by-qr): one synchronous
 * request, no callback and nothing to sweep. The payment a scan makes is C2B's (a confirmation) or Pull's.
 */
import type { DarajaFlow } from "../shared/flow.js";

export const qrFlow = {
  name: "qr",
  callbacks: {},
} satisfies DarajaFlow;
