export { createMtejaClient, MAX_BATCH_CALLS, type MtejaClient, type MtejaClientOptions } from "./client.js";
export type { CookieMode } from "./session.js";
export { callOptions, type CallOptions } from "./call-options.js";
export type { AuthState, AuthStateEvent, AuthStateListener } from "./auth-state.js";
export type { ProofPrompt, ReauthenticationProof } from "./step-up.js";
export { errorCodeOf, isExpiredAccessToken, isMtejaError, validationDetailsOf, type MtejaError, type MtejaErrorCode, type ValidationDetail } from "./errors.js";
export type { AppRouter, ErrorCode, RouterInputs, RouterOutputs } from "./router-types.js";
export { TRPCClientError, isTRPCClientError } from "@trpc/client";
