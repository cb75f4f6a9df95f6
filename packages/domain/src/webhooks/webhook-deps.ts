/** What the webhooks area needs from the composition root (docs/webhooks.md). */
export interface WebhookDeps {
  /**
   * Why this URL cannot be an endpoint, or null when it can. In production: https only, and the name
   * must resolve to public addresses only (unless WEBHOOK_ALLOW_PRIVATE_URLS; docs/webhooks.md#endpoint-addresses).
   * The sender checks every resolved address again when it connects.
   */
  urlProblem(url: string): Promise<string | null>;
  /** Asks the delivery worker to look at the outbox soon (after a commit that wrote events). */
  nudge(): void;
}
