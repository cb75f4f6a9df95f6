/**
 * The service's API as types only: its router, every procedure's input and output, its error codes.
 * The published package carries these declarations bundled (rollup.dts.config.mjs), so a shop needs
 * nothing of the server to type-check.
 */
import type { inferRouterInputs, inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@mteja/domain";

export type { AppRouter };

/** The API's error codes (docs/errors.md), as the router's error shape declares them. */
export type ErrorCode = AppRouter["_def"]["_config"]["$types"]["errorShape"]["error"]["code"];

/** The input of every procedure by path: `RouterInputs["payments"]["stkPush"]`. */
export type RouterInputs = inferRouterInputs<AppRouter>;
/** The output of every procedure by path: `RouterOutputs["profile"]["me"]["data"]`. */
export type RouterOutputs = inferRouterOutputs<AppRouter>;
