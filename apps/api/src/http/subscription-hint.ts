/**
 * What an open subscription (Server-Sent Events on /trpc) receives when its instance stops: tRPC's own
 * `serialized-error` event with SERVICE_UNAVAILABLE — a code tRPC's httpSubscriptionLink retries, so the
 * client keeps its subscription and reconnects instead of failing — and the SSE `retry` field, the delay
 * before an EventSource reconnects (through the balancer, to another instance). The delay is spread, so
 * the subscribers of an instance do not all arrive on the others in the same millisecond.
 */
import { appRouter, serviceUnavailable, toTrpcError } from "@mteja/domain";
import { getTRPCErrorShape } from "@trpc/server";

/** Reconnect after 0.5 to 2.5 s. */
const retryMs = { least: 500, spread: 2_000 } as const;

export function subscriptionClosingHint(random: () => number = Math.random): string {
  const error = toTrpcError(serviceUnavailable(undefined));
  const config = appRouter._def._config;
  const shape = getTRPCErrorShape({
    config,
    error,
    type: "subscription",
    path: undefined,
    input: undefined,
    ctx: undefined,
  });
  const retry = retryMs.least + Math.floor(random() * retryMs.spread);
  return `event: serialized-error\ndata: ${JSON.stringify(shape)}\nretry: ${retry}\n\n`;
}
