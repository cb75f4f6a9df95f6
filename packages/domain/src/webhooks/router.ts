import { nullData, ok } from "../shared/envelope.js";
import { createTRPCRouter, serverProcedure } from "../trpc.js";
import { createEndpoint, deleteEndpoint, listEndpoints, rotateEndpointSecret, updateEndpoint } from "./endpoints.js";
import { listEvents, redeliverEvent } from "./event-reads.js";
import {
  createEndpointInput,
  createEndpointOutput,
  endpointIdInput,
  endpointOutput,
  eventIdInput,
  listEndpointsOutput,
  listEventsOutput,
  maxEndpointsPerTenant,
  pageInput,
  redeliverOutput,
  rotateSecretOutput,
  updateEndpointInput,
} from "./schemas.js";

const tags = ["webhooks"];
const serverErrors = {
  401: "AUTH_REQUIRED or INVALID_TOKEN (a wrong or revoked API key)",
  403: "FORBIDDEN (an access token instead of an API key)",
  422: "VALIDATION_ERROR",
};
const endpointErrors = { ...serverErrors, 404: "NOT_FOUND (no endpoint of this tenant has this id)" };

/** Signed webhooks (docs/webhooks.md): the shop's endpoints and its event feed, with its API key. */
export const webhooksRouter = createTRPCRouter({
  createEndpoint: serverProcedure
    .meta({
      successStatus: 201,
      openapi: {
        method: "POST",
        path: "/api/v1/webhook-endpoints",
        tags,
        summary: "Add a webhook endpoint",
        description: `The signing secret (whsec_…) is in this answer only (Cache-Control: no-store). In production the URL must be https and must resolve to public addresses only (not loopback, private, link-local, carrier-grade NAT, multicast, reserved, nor an IPv6 form carrying an IPv4 address); a refusal names the rule, never the address. At most ${maxEndpointsPerTenant} endpoints per tenant.`,
        errorResponses: { ...serverErrors, 422: `VALIDATION_ERROR (a URL that is refused, unknown event types, or ${maxEndpointsPerTenant} endpoints already)` },
      },
    })
    .input(createEndpointInput)
    .output(createEndpointOutput)
    .mutation(async ({ ctx, input }) => ok(await createEndpoint(ctx, input), "Webhook endpoint created. Store the secret now: it is not shown again.")),

  listEndpoints: serverProcedure
    .meta({ openapi: { method: "GET", path: "/api/v1/webhook-endpoints", tags, summary: "List the webhook endpoints (oldest first, never the secret)", errorResponses: serverErrors } })
    .input(pageInput)
    .output(listEndpointsOutput)
    .query(async ({ ctx, input }) => ok(await listEndpoints(ctx, input))),

  updateEndpoint: serverProcedure
    .meta({
      openapi: {
        method: "PATCH",
        path: "/api/v1/webhook-endpoints/{id}",
        tags,
        summary: "Enable, disable or re-subscribe a webhook endpoint",
        description:
          'Disabling drops what the endpoint is still owed. Setting `enabled` clears `disabled_reason`: enabling an endpoint the service disabled ("failing") lets it receive new events again, and its missed events can be redelivered.',
        errorResponses: endpointErrors,
      },
    })
    .input(updateEndpointInput)
    .output(endpointOutput)
    .mutation(async ({ ctx, input }) => ok(await updateEndpoint(ctx, input))),

  deleteEndpoint: serverProcedure
    .meta({ openapi: { method: "DELETE", path: "/api/v1/webhook-endpoints/{id}", tags, summary: "Delete a webhook endpoint: nothing more is sent to it", errorResponses: endpointErrors } })
    .input(endpointIdInput)
    .output(nullData)
    .mutation(async ({ ctx, input }) => {
      await deleteEndpoint(ctx, input.id);
      return ok(null, "Webhook endpoint deleted.");
    }),

  rotateSecret: serverProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/api/v1/webhook-endpoints/{id}/rotate-secret",
        tags,
        summary: "Replace an endpoint's signing secret",
        description: "The new secret is in this answer only (Cache-Control: no-store). For 24 hours each delivery's Mteja-Signature carries two v1 values: the new secret's, then the old one's.",
        errorResponses: endpointErrors,
      },
    })
    .input(endpointIdInput)
    .output(rotateSecretOutput)
    .mutation(async ({ ctx, input }) => ok(await rotateEndpointSecret(ctx, input.id), "Secret rotated. Store it now: it is not shown again.")),

  listEvents: serverProcedure
    .meta({ openapi: { method: "GET", path: "/api/v1/webhook-events", tags, summary: "List events (newest first) with their delivery attempts", errorResponses: serverErrors } })
    .input(pageInput)
    .output(listEventsOutput)
    .query(async ({ ctx, input }) => ok(await listEvents(ctx, input))),

  redeliver: serverProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/api/v1/webhook-events/{id}/redeliver",
        tags,
        summary: "Send an event again to every endpoint subscribed to its type",
        description:
          "Queued now for every enabled endpoint subscribed to its type, with the same id and body; disabled endpoints are skipped. An endpoint that still has the event pending is not queued twice (a retry it waits for is brought forward). At most 10 calls per event per hour.",
        errorResponses: { ...serverErrors, 404: "NOT_FOUND (no event of this tenant has this id)", 429: "RATE_LIMITED (10 redeliveries of this event in the last hour; Retry-After)" },
      },
    })
    .input(eventIdInput)
    .output(redeliverOutput)
    .mutation(async ({ ctx, input }) => ok(await redeliverEvent(ctx, input.id), "Event queued for delivery.")),
});
