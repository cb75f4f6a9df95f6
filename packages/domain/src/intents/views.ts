/** How the server API shows a payment intent (docs/payment-intents.md#objects). */
import { toServerPaymentView } from "../payments/shared/payment-object.js";
import { isIntentStatus, type IntentStatus } from "./intent-transitions.js";
import type { intents } from "@mteja/db";
import type { IntentView } from "./schemas.js";

export function toIntentView(row: intents.IntentWithPayments): IntentView {
  return {
    id: row.id,
    livemode: row.livemode,
    amount: row.amount,
    reference: row.reference,
    description: row.description,
    user_id: row.userId,
    metadata: stringRecord(row.metadata),
    status: intentStatusOf(row.status),
    created_at: row.createdAt.toISOString(),
    expires_at: row.expiresAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    payments: row.payments.map(toServerPaymentView),
  };
}

function intentStatusOf(status: string): IntentStatus {
  if (!isIntentStatus(status)) throw new Error(`payment intent with an unknown status ${status}`);
  return status;
}

/** metadata is written only as validated string values; anything else would be a bug upstream. */
function stringRecord(value: unknown): Record<string, string> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return {};
  return Object.fromEntries(Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === "string"));
}
