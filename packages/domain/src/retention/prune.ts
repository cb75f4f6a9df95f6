import { retention, type Database } from "@mteja/db";
import type { RetentionRule } from "./rules.js";

export interface PruneOptions {
  now: Date;
  /** Days each kind is kept; a kind left out, or 0, is kept for ever. */
  days: Partial<Record<string, number>>;
  /** Rows deleted per statement: a large backlog is deleted in many short statements, never one long one. */
  batchSize: number;
  /** The table of rules.ts, built with the flow registry's callback kinds (retentionRulesFor). */
  rules: readonly RetentionRule[];
}

/** Rows deleted per kind (kinds kept for ever are left out). */
export type PruneReport = Record<string, number>;

/**
 * Deletes every row past its retention, in batches. Any number of instances (and `mteja prune`) may run
 * it at once: two runs never wait for nor delete the same rows (@mteja/db's `retention.pruneExpired`).
 */
export async function pruneExpiredRows(db: Database, options: PruneOptions): Promise<PruneReport> {
  const report: PruneReport = {};
  for (const rule of options.rules) {
    const days = options.days[rule.kind] ?? 0;
    if (days <= 0) continue;
    const cutoff = new Date(options.now.getTime() - days * 86_400_000);
    report[rule.kind] = await retention.pruneExpired(db.unscoped("retention"), rule.expired, cutoff, options.batchSize);
  }
  return report;
}
