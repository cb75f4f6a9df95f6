/**
 * The registry of payment flows (docs/mpesa.md#the-flow-registry): one line per Daraja flow, each
 * declared in its own folder (`<flow>/flow.ts`). Everything that must know every flow reads this list:
 * the callback route and its OpenAPI operations (apps/api/src/http/daraja-callbacks.ts), the callback
 * URL settings (apps/api/src/runtime/payments-settings.ts), the dispatcher (callbacks.ts), the
 * reconciler (reconciliation.ts), the retention of stored callbacks and the dev start's simulator wiring.
 */
import { balanceFlow } from "./balance/flow.js";
import { c2bFlow } from "./c2b/flow.js";
import type { CallbackRoute, DarajaFlow } from "./shared/flow.js";
import { payoutsFlow } from "./payouts/flow.js";
import { pullFlow } from "./pull/flow.js";
import { qrFlow } from "./qr/flow.js";
import { refundsFlow } from "./refunds/flow.js";
import { stkFlow } from "./stk/flow.js";

export const darajaFlows = [
  stkFlow,
  payoutsFlow,
  refundsFlow,
  c2bFlow,
  balanceFlow,
  pullFlow,
  qrFlow,
] as const satisfies readonly DarajaFlow[];

type RegisteredFlow = (typeof darajaFlows)[number];
// Conditional types distribute over the union of flows: each flow's own keys and routes.
type KindsOf<Flow> = Flow extends { callbacks: infer Callbacks } ? keyof Callbacks & string : never;
type RoutesOf<Flow> = Flow extends { callbacks: infer Callbacks } ? Callbacks[keyof Callbacks] : never;
type SettingOf<Route> = Route extends { url: { setting: infer Name extends string } } ? Name : never;
type RegisteredRoute = RoutesOf<RegisteredFlow>;

/** Every callback kind of the registry: the `kind` stored with each callback. */
export type CallbackKind = KindsOf<RegisteredFlow>;

/** The settings that give callback URLs (MOMO_CALLBACK_URL, MOMO_B2C_RESULT_URL, …), as the flows declare them. */
export type CallbackUrlSetting = SettingOf<RegisteredRoute>;

/** A callback of the registry, with its kind and its flow. */
export interface RegisteredCallback extends CallbackRoute {
  kind: CallbackKind;
  flow: string;
}

/** Every callback of every flow, in the registry's order. */
export const callbackRoutes: readonly RegisteredCallback[] = darajaFlows.flatMap((flow) =>
  Object.entries(flow.callbacks).map(([kind, route]) => ({ ...route, kind: kind as CallbackKind, flow: flow.name })),
);

/** The callback of a kind. */
export function callbackRouteOf(kind: CallbackKind): RegisteredCallback {
  const route = callbackRoutes.find((candidate) => candidate.kind === kind);
  if (!route) throw new Error(`no flow declares the callback kind ${kind}`);
  return route;
}

/** Every setting that gives a callback URL, in the registry's order. */
export const callbackUrlSettings = callbackRoutes.flatMap((route) =>
  route.url.setting ? [route.url.setting as CallbackUrlSetting] : [],
);

/** The kinds of callbacks with which no money moves: retention prunes them at their age whatever they came to. */
export const callbackKindsWithoutMoney: readonly CallbackKind[] = callbackRoutes
  .filter((route) => route.movesNoMoney)
  .map((route) => route.kind);
