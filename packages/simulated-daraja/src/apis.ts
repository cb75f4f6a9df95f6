/**
 * The Daraja APIs the simulation answers, one line each (api.ts says what each declares). The
 * in-process transport (transport.ts) and apps/daraja-sim's routes, scripts and controls are derived
 * from this list, so a new API is its own file and one line here.
 */
import { accountBalanceApi } from "./account-balance.js";
import type { DarajaAnswer, JsonBody } from "./answers.js";
import { b2cApi } from "./b2c.js";
import { c2bApi } from "./c2b.js";
import type { SimulationContext } from "./context.js";
import { dynamicQrApi } from "./dynamic-qr.js";
import { pullApi } from "./pull.js";
import { reversalApi } from "./reversal.js";
import { stkApi } from "./stk.js";
import { transactionStatusApi } from "./transaction-status.js";
import type { EndpointAnswer, SimulatedApi } from "./api.js";

export const SIMULATED_APIS = [
  stkApi,
  b2cApi,
  transactionStatusApi,
  reversalApi,
  accountBalanceApi,
  c2bApi,
  pullApi,
  dynamicQrApi,
] as const satisfies readonly SimulatedApi[];

type Api = (typeof SIMULATED_APIS)[number];

/** The GET that issues access tokens: the one endpoint that is not a POST of a body. */
export const OAUTH_PATH = "/oauth/v1/generate";

/** What a test script calls a Daraja endpoint (apps/daraja-sim's scripts.ts). */
export type SimOperation = "oauth" | Api["endpoints"][number]["operation"];

/** The kinds of the callbacks the simulation sends. */
export type CallbackKind = Api["callbackKinds"][number];

// Distributes over the APIs: the names of those that take a queued outcome.
type OutcomeNameOf<A> = A extends { outcomes: infer Name extends string } ? Name : never;

/** The APIs an outcome can be queued for (POST /sim/next-outcome's `api`). */
export type SimApi = OutcomeNameOf<Api>;

export const SIM_APIS = SIMULATED_APIS.flatMap((api) => ("outcomes" in api ? [api.outcomes] : [])) as SimApi[];

/** One Daraja endpoint of a simulation, ready to answer. */
export interface SimulationEndpoint {
  path: string;
  operation: SimOperation;
  firstField: string;
  /** What the gateway refuses before reading the body; null: nothing. */
  refusal(): DarajaAnswer | null;
  answer(body: JsonBody): Promise<DarajaAnswer>;
}

/** Every POST endpoint of every API, over one simulation's context. */
export function createEndpoints(context: SimulationContext): SimulationEndpoint[] {
  return SIMULATED_APIS.flatMap((api) =>
    api.endpoints.map(({ path, operation, firstField, create }) => {
      const handler: EndpointAnswer = create(context);
      return { path, operation, firstField, refusal: handler.refusal ?? (() => null), answer: handler.answer };
    }),
  );
}

/** Each POST endpoint's operation by its path, and the token's GET. */
export const SIM_OPERATIONS: Readonly<Record<string, SimOperation>> = Object.fromEntries([
  [OAUTH_PATH, "oauth"],
  ...SIMULATED_APIS.flatMap((api) => api.endpoints.map((endpoint) => [endpoint.path, endpoint.operation])),
]);
