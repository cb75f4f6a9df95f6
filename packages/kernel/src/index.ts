/** What several packages share and none owns: the one retry backoff and the time and chance ports. */
export { backoffAfter, type Backoff, type BackoffPolicy, type Jitter } from "./backoff.js";
export type { Clock, Random } from "./ports.js";
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
