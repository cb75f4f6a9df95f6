/**
 * The registry of payment flows (docs/mpesa.md#the-flow-registry): one line per Daraja flow, each
 * declared in its own folder (`<flow>/flow.ts`) with its procedures (`<flow>/router.ts`). Everything
 * that must know every flow is derived from this list: the routers of the API (../router.ts), the
 * callback route and its OpenAPI operations (apps/api/src/http/daraja-callbacks.ts), the callback URL
 * settings (apps/api/src/runtime/payments-settings.ts), the reconciler's sweeps and the retention of
 * stored callbacks (handed over by the composition root) and the dev start's simulator wiring.
 *
 * It names routers, so it is part of the API layer (scripts/dependency-rules.mjs): the areas below,
 * the dispatcher and the reconciler among them, are given what they need of it, never import it.
 */
import type { AnyRouter } from "@trpc/server";
import { balanceFlow } from "./balance/flow.js";
import { balanceRouter } from "./balance/router.js";
import { c2bFlow } from "./c2b/flow.js";
import { c2bRouter } from "./c2b/router.js";
import type { CallbackRoute, DarajaFlow } from "./shared/flow.js";
import { payoutsFlow } from "./payouts/flow.js";
import { pullFlow } from "./pull/flow.js";
import { pullRouter } from "./pull/router.js";
import { qrFlow } from "./qr/flow.js";
import { qrRouter } from "./qr/router.js";
import { refundsFlow } from "./refunds/flow.js";
import { refundsRouter, reversalsRouter } from "./refunds/router.js";
import { stkFlow } from "./stk/flow.js";

/**
 * A flow with the routers of its operations, by their key in the API (the first part of each
 * procedure's path and REST operationId). STK's and B2C payouts' operations predate the registry and
 * stay in the payments router (`payments.stkPush`, `payments.b2c`): they register none.
 */
interface FlowWithRouters extends DarajaFlow {
  routers?: Readonly<Record<string, AnyRouter>>;
}

export const darajaFlows = [
  stkFlow,
  payoutsFlow,
  { ...refundsFlow, routers: { reversals: reversalsRouter, refunds: refundsRouter } },
  { ...c2bFlow, routers: { c2b: c2bRouter } },
  { ...balanceFlow, routers: { balance: balanceRouter } },
  { ...pullFlow, routers: { pull: pullRouter } },
  { ...qrFlow, routers: { qr: qrRouter } },
] as const satisfies readonly FlowWithRouters[];

type RegisteredFlow = (typeof darajaFlows)[number];
// Conditional types distribute over the union of flows: each flow's own keys and routes.
type KindsOf<Flow> = Flow extends { callbacks: infer Callbacks } ? keyof Callbacks & string : never;
type RoutesOf<Flow> = Flow extends { callbacks: infer Callbacks } ? Callbacks[keyof Callbacks] : never;
type SettingOf<Route> = Route extends { url: { setting: infer Name extends string } } ? Name : never;
type RegisteredRoute = RoutesOf<RegisteredFlow>;
type RoutersOf<Flow> = Flow extends { routers: infer Routers } ? Routers : never;
type Intersection<Union> = (Union extends unknown ? (each: Union) => void : never) extends (all: infer All) => void
  ? All
  : never;

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

/** Every setting that gives a callback URL, in the registry's order. */
export const callbackUrlSettings = callbackRoutes.flatMap((route) =>
  route.url.setting ? [route.url.setting as CallbackUrlSetting] : [],
);

/** The kinds of callbacks with which no money moves: retention prunes them at their age whatever they came to. */
export const callbackKindsWithoutMoney: readonly CallbackKind[] = callbackRoutes
  .filter((route) => route.movesNoMoney)
  .map((route) => route.kind);

/** Every flow's routers in one object, in the registry's order, for the API's router (../router.ts). */
export type FlowRouters = Intersection<RoutersOf<RegisteredFlow>>;

export const flowRouters = Object.fromEntries(
  darajaFlows.flatMap((flow) => Object.entries("routers" in flow ? flow.routers : {})),
) as FlowRouters;
