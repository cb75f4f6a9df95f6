import type { DatabaseOptions } from "@mteja/db";
import type { Settings } from "../settings.js";

/** The database the settings name, with their pool size and time-outs: the service and the CLI open it alike. */
export function databaseOptionsOf(settings: Settings, poolMax = settings.DATABASE_POOL_MAX): DatabaseOptions {
  return {
    url: settings.DATABASE_URL,
    dataDir: settings.DATA_DIR,
    poolMax,
    preparedStatements: settings.DATABASE_PREPARED_STATEMENTS,
    connectTimeoutMs: settings.DATABASE_CONNECT_TIMEOUT_MS,
    statementTimeoutMs: settings.DATABASE_STATEMENT_TIMEOUT_MS,
  };
}
