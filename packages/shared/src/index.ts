/** What several packages share and none owns: the one retry backoff, the fair share of the workers' claims, and the time and chance ports. */
export { backoffAfter, type Backoff, type BackoffPolicy, type Jitter } from "./backoff.js";
export {
  createInFlightLedger,
  fairPick,
  quarterShare,
  type FairShare,
  type InFlightCounts,
  type InFlightLedger,
  type ReadyRow,
} from "./fair-share.js";
export type { Clock, Random } from "./ports.js";
export { createLeaseKeeper, type HeldLease, type LeaseKeeper, type LeaseKeeperOptions } from "./lease-keeper.js";
export {
  createLeasedOutboxWorker,
  type DeliveryFailure,
  type LeasedOutboxStore,
  type LeasedOutboxWorker,
  type LeasedOutboxWorkerOptions,
  type OutboxItem,
  type OutboxLogger,
  type OutboxRunResult,
} from "./outbox-worker.js";
