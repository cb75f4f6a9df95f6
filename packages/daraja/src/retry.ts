import { setTimeout as sleep } from "node:timers/promises";
import { isDarajaError } from "./errors.js";

/**
 * Runs `attempt`, repeating it after each delay while it fails with outcome 'not_sent' (no
 * connection was made). A request that may have reached Daraja is never repeated here.
 */
export async function retryWhileNotSent<T>(attempt: () => Promise<T>, delaysMs: readonly number[]): Promise<T> {
  for (let index = 0; ; index++) {
    try {
      return await attempt();
    } catch (error) {
      const delay = delaysMs[index];
      if (delay === undefined || !isDarajaError(error) || error.outcome !== "not_sent") throw error;
      await sleep(delay);
    }
  }
}
