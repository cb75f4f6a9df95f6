/** The STK abuse limits of docs/limits.md: prompts per customer and per phone, queries per customer. */
import type { Context } from "../shared/ports.js";
import { consumeAll, type CountedPoints } from "../../shared/abuse-limits.js";

/**
 * Counts an STK prompt before Daraja is called: per customer (10 a minute) and per phone number of the
 * shop (3 a minute, 10 an hour), so that no one can flood a subscriber's phone with prompts or lock
 * its M-Pesa menu. The phone is the normalised 2547… form, so every spelling of a number counts alike.
 */
export async function countStkPrompt(ctx: Context, prompt: { tenantId: string; userId: string; phone: string }): Promise<CountedPoints> {
  const phoneKey = `${prompt.tenantId}:${prompt.phone}`;
  return consumeAll(ctx.deps.limiter, [
    ["stkpush_per_user", `${prompt.tenantId}:${prompt.userId}`],
    ["stk_prompts_per_phone_minute", phoneKey],
    ["stk_prompts_per_phone_hour", phoneKey],
  ]);
}

/** Counts one stkquery of a customer (30 a minute): a pending payment's query is a call to Daraja. */
export async function countStkQuery(ctx: Context, owner: { tenantId: string; userId: string }): Promise<void> {
  await consumeAll(ctx.deps.limiter, [["stkquery_per_user", `${owner.tenantId}:${owner.userId}`]]);
}
