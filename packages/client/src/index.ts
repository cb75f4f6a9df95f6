export { createMtejaClient, MAX_BATCH_CALLS, type MtejaClient, type MtejaClientOptions } from "./client.js";
export type { CookieMode } from "./session.js";
export { isExpiredAccessToken } from "./errors.js";
export { TRPCClientError, isTRPCClientError } from "@trpc/client";
