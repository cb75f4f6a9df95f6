/**
 * A C2B payment as `GET /api/v1/c2b-payments` and the `c2b_payment.unmatched` event show it: whether it
 * paid an intent, what the customer typed as the account, and the payment itself (the one payment
 * serialiser, shared/payment-object.ts).
 */
import type { PaymentModel } from "@mteja/db";
import { toServerPaymentView } from "../shared/payment-object.js";
import type { ServerPaymentView } from "../shared/schemas.js";

export type C2bMatchStatus = "matched" | "unmatched";
export const c2bMatchStatuses = ["matched", "unmatched"] as const;

export interface C2bPaymentObject {
  id: string;
  livemode: boolean;
  /** matched: it paid an intent (or is a duplicate for one); unmatched: kept for the shop. */
  status: C2bMatchStatus;
  /** BillRefNumber, as the customer typed it. */
  account: string;
  short_code: string | null;
  /** Why it is unmatched or flagged. */
  note: string | null;
  payment: ServerPaymentView;
}

export function c2bPaymentObject(row: PaymentModel): C2bPaymentObject {
  return {
    id: row.id,
    livemode: row.livemode,
    status: row.c2bMatch === "matched" ? "matched" : "unmatched",
    account: row.reference,
    short_code: row.shortCode,
    note: row.c2bNote,
    payment: toServerPaymentView(row),
  };
}
