/**
 * The retention settings (docs/operations.md#retention), spread into the one settings schema of
 * ../settings.ts: one RETENTION_<KIND>_DAYS per rule of the domain's table, so a new rule brings its setting.
 */
import { callbackKindsWithoutMoney, retentionRulesFor, type RetentionKind } from "@mteja/domain";
import { z } from "zod";

/** The domain's table of rules, with the callback kinds its flow registry says move no money. */
export const retentionRules = retentionRulesFor(callbackKindsWithoutMoney);

type DaysSetting<K extends string> = `RETENTION_${Uppercase<K>}_DAYS`;
type RetentionDaysShape = { [K in RetentionKind as DaysSetting<K>]: z.ZodDefault<z.ZodCoercedNumber<unknown>> };

const daysSetting = <K extends string>(kind: K) => `RETENTION_${kind.toUpperCase()}_DAYS` as DaysSetting<K>;

export const retentionSettingsShape = {
  ...(Object.fromEntries(
    retentionRules.map((rule) => {
      const name = daysSetting(rule.kind);
      return [name, z.coerce.number({ error: `${name} must be a number of days` }).int(`${name} must be whole days`).min(0, `${name} must be 0 (keep for ever) or more`).max(36_500).default(rule.defaultDays)];
    }),
  ) as RetentionDaysShape),
  /** How often each instance prunes; 0: never (run `mteja prune` from a scheduler instead). */
  PRUNE_INTERVAL_SECONDS: z.coerce.number({ error: "PRUNE_INTERVAL_SECONDS must be a number" }).int().min(0).max(7 * 86_400).default(3_600),
  PRUNE_BATCH_SIZE: z.coerce.number({ error: "PRUNE_BATCH_SIZE must be a number" }).int().min(1).max(100_000).default(1_000),
};

/** Days each kind of row is kept, by kind, as the pruning job takes them. */
export function retentionDaysOf(settings: { [K in keyof RetentionDaysShape]: number }): Record<RetentionKind, number> {
  return Object.fromEntries(retentionRules.map((rule) => [rule.kind, settings[daysSetting(rule.kind)]])) as Record<RetentionKind, number>;
}
