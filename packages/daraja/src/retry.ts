import { setTimeout as sleep } from "node:timers/promises";
import { isDarajaError } from "./errors.js";

/**
 * Runs `attempt`, repeating it after each delay while it fails with 'unavailable'. Only for calls
 * that cannot move money twice (OAuth, STK query).
 */
export async function retryWhileUnavailable<T>(attempt: () => Promise<T>, delaysMs: readonly number[]): Promise<T> {
  for (let index = 0; ; index++) {
    try {
      return await attempt();
    } catch (error) {
      const delay = delaysMs[index];
      if (delay === undefined || !isDarajaError(error) || error.kind !== "unavailable") throw error;
      await sleep(delay);
    }
  }
}
