/** A text waiting in the SMS outbox, as claimed by the worker. */
export interface OutboxText {
  id: string;
  tenantId: string;
  /** International format, `+2547…`. */
  to: string;
  /** What the text is for (`phone_code`): logged, never the body. */
  kind: string;
  body: string;
  /** Failed delivery attempts so far (0 for a text never tried). */
  attempts: number;
}

/** What the provider answered for an accepted or finally refused text. */
export interface SmsSendResult {
  /** `accepted`: the provider took it (not yet delivered); `rejected`: refused for good, never retried. */
  outcome: "accepted" | "rejected";
  /** The provider's id, which delivery reports refer to; null when it gave none. */
  messageId: string | null;
  /** The provider's status name (`Success`, `UserInBlacklist`…). */
  status: string;
}
