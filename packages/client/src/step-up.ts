/**
 * Step-up on the client (docs/step-up.md): a sensitive change on a session that is no longer fresh is
 * refused with 403 STEP_UP_REQUIRED; the user proves it is them again (reauthenticate) and the change
 * is made once more.
 */
import type { TRPCClient } from "@trpc/client";
import { isMtejaError } from "./errors.js";
import type { AppRouter, RouterInputs } from "./router-types.js";

/** What reauthenticate takes: `{ password }` or `{ sms_code }` (from `api.auth.reauthenticateSms`), and `code` while two-factor is on. */
export type ReauthenticationProof = RouterInputs["auth"]["reauthenticate"];

/** Asked for the user's proof when a call needs a fresh session; null gives up (the call fails with STEP_UP_REQUIRED). */
export type ProofPrompt = () => Promise<ReauthenticationProof | null>;

export function stepUpRunner(api: TRPCClient<AppRouter>) {
  return async function withStepUp<T>(call: () => Promise<T>, askProof: ProofPrompt): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (!isMtejaError(error, "STEP_UP_REQUIRED")) throw error;
      const proof = await askProof();
      if (!proof) throw error;
      // A wrong proof fails here with its own code (INVALID_CREDENTIALS, INVALID_OTP, VALIDATION_ERROR, RATE_LIMITED).
      await api.auth.reauthenticate.mutate(proof);
      return call();
    }
  };
}
