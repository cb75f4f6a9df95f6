import type { CallbackSender } from "./callback-sender.js";
import type { ResolvedSimulationOptions } from "./options.js";
import type { SimOutcome } from "./outcomes.js";
import type { Records } from "./records.js";

/** What the B2C utility account holds before the first payout (the portal's sample figure). */
export const INITIAL_UTILITY_BALANCE = 8_959_269.6;

/**
 * Chooses the outcome of a request before its magic amount does (the HTTP simulator's
 * `POST /sim/next-outcome` queue) for an API (its `outcomes` name, apis.ts); null leaves it to the amount.
 */
export type OutcomeChooser = (api: string, phone: string, allowed: readonly SimOutcome[]) => SimOutcome | null;

/** What each operation of a simulation works with. */
export interface SimulationContext {
  options: ResolvedSimulationOptions;
  records: Records;
  /** The utility account's balance after adding `delta` (0: as it is). */
  balance(delta: number): Promise<number>;
  callbacks: CallbackSender;
  chooseOutcome: OutcomeChooser;
}
