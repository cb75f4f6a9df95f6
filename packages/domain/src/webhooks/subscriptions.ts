import { webhookEventTypes, type WebhookEventType } from "./event-types.js";

/** An endpoint's `events` column: the types it asked for (stored as given; all of them when omitted). */
export function storedEventTypes(value: unknown): WebhookEventType[] {
  if (!Array.isArray(value)) return [...webhookEventTypes];
  return value.filter((type): type is WebhookEventType => (webhookEventTypes as readonly string[]).includes(type as string));
}

export function subscribes(events: unknown, type: WebhookEventType): boolean {
  return storedEventTypes(events).includes(type);
}
