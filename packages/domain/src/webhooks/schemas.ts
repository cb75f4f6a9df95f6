import { z } from "zod";
import { envelope } from "../shared/envelope.js";
import { oneLineString } from "../shared/fields.js";
import { webhookEventTypes } from "./event-types.js";

/** Why the service disabled an endpoint (docs/webhooks.md#endpoints-that-keep-failing); a shop's own disable has none. */
export const endpointDisabledReasons = ["failing"] as const;

/** At most this many endpoints per tenant that are not deleted (422 beyond): every event is sent to each. */
export const maxEndpointsPerTenant = 16;

const endpointUrl = oneLineString({ error: "url is required" })
  .trim()
  .max(2048, "url must be at most 2048 characters")
  .refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), "url must be an http or https URL");

const eventList = z
  .array(z.enum(webhookEventTypes, { error: `each event must be one of ${webhookEventTypes.join(", ")}` }))
  .min(1, "events must name at least one event type (omit it for all)")
  .transform((events) => [...new Set(events)])
  .describe("The event types sent to this endpoint; omitted: all of them.");

const endpointId = z.uuid("id must be a webhook endpoint id");

export const createEndpointInput = z.object({ url: endpointUrl, events: eventList.optional() });
export const endpointIdInput = z.object({ id: endpointId });
export const updateEndpointInput = z.object({ id: endpointId, enabled: z.boolean().optional(), events: eventList.optional() });

export const pageInput = z.object({
  limit: z.number().int().min(1).max(100).default(20),
  cursor: oneLineString().max(200).optional().describe("next_cursor of the previous page."),
});
export const eventIdInput = z.object({ id: oneLineString()
    .regex(/^evt_[0-9a-f]{32}$/, "id must be an event id (evt_…)")
    .meta({ examples: ["evt_4f1d2c3b5a6978e0d1c2b3a495867f70"] }) });

export const endpointView = z.object({
  id: z.string(),
  livemode: z.boolean().describe("The mode of the key that created it: it receives only that mode's events (docs/test-mode.md)."),
  url: z.string(),
  events: z.array(z.string()),
  enabled: z.boolean(),
  disabled_reason: z
    .enum(endpointDisabledReasons)
    .nullable()
    .describe('Why the service disabled it: "failing" when every delivery to it failed for 3 days (WEBHOOK_DISABLE_AFTER_SECONDS). Null when enabled, or when disabled by the shop (PATCH enabled: false). PATCH enabled: true clears it.'),
  created_at: z.string(),
  updated_at: z.string(),
});

export const createEndpointOutput = envelope(
  z.object({
    id: z.string(),
    livemode: z.boolean(),
    url: z.string(),
    events: z.array(z.string()),
    secret: z.string().describe("The signing secret (whsec_…), shown only in this answer."),
    created_at: z.string(),
  }),
);
export const endpointOutput = envelope(endpointView);
export const listEndpointsOutput = envelope(z.object({ webhook_endpoints: z.array(endpointView), next_cursor: z.string().nullable() }));
export const rotateSecretOutput = envelope(
  z.object({
    id: z.string(),
    secret: z.string().describe("The new signing secret (whsec_…), shown only in this answer."),
    previous_secret_expires_at: z.string().describe("Until then each delivery carries a second v1 signature made with the previous secret."),
  }),
);

const attemptView = z.object({ endpoint_id: z.string(), attempted_at: z.string(), status_code: z.number().nullable(), error: z.string().nullable() });
const eventView = z.object({
  id: z.string(),
  type: z.string(),
  created_at: z.string(),
  tenant_id: z.string(),
  livemode: z.boolean().describe("The mode of the object it reports (docs/test-mode.md)."),
  data: z.record(z.string(), z.unknown()),
  attempts: z.array(attemptView),
});
export const listEventsOutput = envelope(z.object({ webhook_events: z.array(eventView), next_cursor: z.string().nullable() }));
export const redeliverOutput = envelope(
  z.object({
    id: z.string(),
    deliveries: z.number().int().describe("How many enabled endpoints subscribed to its type it is now queued for (one already queued for an endpoint counts, and is not queued twice)."),
  }),
);
