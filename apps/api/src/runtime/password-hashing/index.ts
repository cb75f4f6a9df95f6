import type { Logger, PasswordHashing } from "@mteja/domain";
import type { Settings } from "../../settings.js";
import { createProcessHashing } from "./process-pool.js";
import { createThreadHashing } from "./threads.js";

/** Where argon2id runs, as PASSWORD_HASHER says (docs/performance.md has the measurements behind the default). */
export function createPasswordHashing(
  settings: Pick<Settings, "PASSWORD_HASHER" | "PASSWORD_HASH_CONCURRENCY" | "PASSWORD_HASH_NICENESS">,
  logger: Pick<Logger, "warn">,
): PasswordHashing & { close(): Promise<void> } {
  if (settings.PASSWORD_HASHER === "threads") return { ...createThreadHashing(), close: async () => undefined };
  return createProcessHashing({ size: settings.PASSWORD_HASH_CONCURRENCY, niceness: settings.PASSWORD_HASH_NICENESS, logger });
}
