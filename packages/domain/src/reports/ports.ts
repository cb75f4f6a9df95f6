/** What the reports area needs from the composition root. */
import type { Database } from "@mteja/db";
import type { Clock } from "../shared/ports.js";

export interface ReportSettings {
  /** REPORT_BATCH_SIZE: the rows read at a time from each kind of movement (docs/configuration.md). */
  batchSize: number;
}

export interface ReportPorts {
  db: Database;
  clock: Clock;
  reports: ReportSettings;
}
