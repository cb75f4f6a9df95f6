/**
 * The pruning job of the composition root (docs/operations.md#retention): every instance runs it every
 * PRUNE_INTERVAL_SECONDS; its batches skip rows another instance (or `mteja prune`) is deleting.
 */
import { pruneExpiredRows, type Deps, type Logger, type PruneReport } from "@mteja/domain";
import type { Settings } from "../settings.js";
import { retentionDaysOf, retentionRules } from "./retention-settings.js";

export interface RetentionRuntime {
  start(): void;
  /** Prunes now; `mteja prune` and tests. */
  runOnce(): Promise<PruneReport>;
  /** Stops the timer, waiting for a run in flight. */
  close(): Promise<void>;
}

export function createRetentionRuntime(settings: Settings, logger: Logger, getDeps: () => Deps): RetentionRuntime {
  const days = retentionDaysOf(settings);
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<unknown> | undefined;
  let stopped = false;

  const runOnce = () => {
    const deps = getDeps();
    const batchSize = settings.PRUNE_BATCH_SIZE;
    return pruneExpiredRows(deps.db, { rules: retentionRules, now: deps.clock.now(), days, batchSize });
  };

  const tick = () => {
    inFlight = runOnce()
      .then((report) => {
        if (Object.values(report).some((n) => n > 0)) logger.info({ deleted: report }, "expired rows pruned");
      })
      .catch((error: unknown) => logger.error({ err: error }, "pruning failed; retrying on the next run"))
      .finally(() => {
        inFlight = undefined;
        if (!stopped) timer = setTimeout(tick, settings.PRUNE_INTERVAL_SECONDS * 1000);
      });
  };

  return {
    start() {
      // A first run a minute after start, so a fleet restarting together does not all prune while warming up.
      if (settings.PRUNE_INTERVAL_SECONDS > 0) timer = setTimeout(tick, Math.min(60, settings.PRUNE_INTERVAL_SECONDS) * 1000);
    },
    runOnce,
    async close() {
      stopped = true;
      clearTimeout(timer);
      await inFlight;
    },
  };
}
