import type { LoggedCallback, SimApi, SimOutcome } from "@mteja/simulated-daraja";

export interface QueuedOutcome {
  outcome: SimOutcome;
  phone: string | null;
  api: SimApi | null;
}

export interface LoggedRequest {
  at: string;
  method: string;
  path: string;
  status: number;
  body: unknown;
}

/** What the HTTP simulator itself remembers (its logs, its control queue), per instance: nothing is module-level. */
export interface ServerState {
  queuedOutcomes: QueuedOutcome[];
  requests: LoggedRequest[];
  callbacks: LoggedCallback[];
}

export function createServerState(): ServerState {
  return { queuedOutcomes: [], requests: [], callbacks: [] };
}

/** Forgets queued outcomes and logs. */
export function resetServerState(state: ServerState): void {
  state.queuedOutcomes.length = 0;
  state.requests.length = 0;
  state.callbacks.length = 0;
}

export function pushBounded<T>(list: T[], entry: T, limit: number): void {
  list.push(entry);
  if (list.length > limit) list.splice(0, list.length - limit);
}

/** Takes the first queued outcome that applies to this request (phone- and API-specific ones included). */
export function takeQueuedOutcome(
  state: ServerState,
  api: string,
  phone: string,
  allowed: readonly SimOutcome[],
): SimOutcome | null {
  const index = state.queuedOutcomes.findIndex(
    (queued) =>
      (queued.api === null || queued.api === api) &&
      (queued.phone === null || queued.phone === phone) &&
      allowed.includes(queued.outcome),
  );
  if (index === -1) return null;
  const [queued] = state.queuedOutcomes.splice(index, 1);
  return queued?.outcome ?? null;
}
