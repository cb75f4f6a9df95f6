/**
 * Per-call options: what one query or mutation sends besides its input.
 *
 *   await mteja.api.payments.stkPush.mutate(input, callOptions({ idempotencyKey: orderId, signal }));
 */
import type { TRPCRequestOptions } from "@trpc/client";

export interface CallOptions {
  /**
   * Sent as `Idempotency-Key`: a repeated call with the same key (a double-tapped "Pay", a retry after
   * a lost answer) gets the first call's answer instead of doing it again (stkpush, b2c, payment
   * intents). Such a call is sent alone, not in a batch.
   */
  idempotencyKey?: string;
  /**
   * Sent as `X-Captcha-Token`: the CAPTCHA widget's token, where the shop puts the flow behind one
   * (register, guest, phone/start, forgot-password; docs/sign-in.md#captcha). Sent alone, as a key is.
   */
  captchaToken?: string;
  /** Aborts the call (e.g. when the page that made it goes away). */
  signal?: AbortSignal;
}

const contextKey = "mtejaIdempotencyKey";
const captchaKey = "mtejaCaptchaToken";

/** The options of tRPC's `query(input, options)` / `mutate(input, options)` for these call options. */
export function callOptions(options: CallOptions): TRPCRequestOptions {
  return {
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.idempotencyKey !== undefined || options.captchaToken !== undefined
      ? {
          context: {
            ...(options.idempotencyKey !== undefined ? { [contextKey]: options.idempotencyKey } : {}),
            ...(options.captchaToken !== undefined ? { [captchaKey]: options.captchaToken } : {}),
          },
        }
      : {}),
  };
}

/** The headers of a call's own (set by callOptions): Idempotency-Key, X-Captcha-Token; none for most calls. */
export function callHeadersOf(context: Record<string, unknown> | undefined): Record<string, string> | undefined {
  const key = idempotencyKeyOf(context);
  const captcha = context?.[captchaKey];
  if (key === undefined && typeof captcha !== "string") return undefined;
  return { ...(key !== undefined ? { "idempotency-key": key } : {}), ...(typeof captcha === "string" ? { "x-captcha-token": captcha } : {}) };
}

/** The Idempotency-Key a call's context carries (set by callOptions), if any. */
export function idempotencyKeyOf(context: Record<string, unknown> | undefined): string | undefined {
  const key = context?.[contextKey];
  return typeof key === "string" ? key : undefined;
}
