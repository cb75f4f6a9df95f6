/**
 * What a simulated Daraja API declares, once, beside what it does: its endpoints (Daraja's path, the
 * name a test script knows it by, the field the gateway names when it cannot read the body), the
 * callbacks it sends, and the name under which an outcome can be queued for it. apis.ts lists them; the
 * in-process transport and the HTTP simulator's routes, scripts and controls are derived from that list.
 */
import type { DarajaAnswer, JsonBody } from "./answers.js";
import type { SimulationContext } from "./context.js";

/** How one endpoint answers, over a simulation's context. */
export interface EndpointAnswer {
  /** What the gateway refuses before reading the body; null: nothing. */
  refusal?(): DarajaAnswer | null;
  answer(body: JsonBody): Promise<DarajaAnswer>;
}

/** One POST endpoint of Daraja's. */
export interface SimulatedEndpoint {
  path: string;
  /** The name a test script knows it by (several paths may share one: B2C v1 and v3). */
  operation: string;
  /** The field Daraja's gateway names when it cannot read the body at all. */
  firstField: string;
  create(context: SimulationContext): EndpointAnswer;
}

/** A Daraja API as the simulation answers it. */
export interface SimulatedApi {
  endpoints: readonly SimulatedEndpoint[];
  /** The kinds of the callbacks it sends (the receiver's kinds, logged with each). */
  callbackKinds: readonly string[];
  /** The name under which POST /sim/next-outcome queues an outcome for it; none: it takes none. */
  outcomes?: string;
}

/** Keeps a declaration's literal names, so the operations, kinds and outcome names are types. */
export const simulatedApi = <const Api extends SimulatedApi>(api: Api): Api => api;
