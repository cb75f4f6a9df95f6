/**
 * What a procedure may know about the HTTP request it serves (apps/api fills it in). Transport-free:
 * cookies, headers and the status are asked for, never touched.
 */
import type { Locale } from "@mteja/i18n";

export interface CookieOptions {
  httpOnly: boolean;
  secure: boolean;
  sameSite: "strict" | "lax";
  path: string;
  maxAge?: number;
}

/** What a procedure may know about the HTTP request it serves; apps/api fills it in. */
export interface RequestInfo {
  tenantHeader: string | undefined;
  authorization: string | undefined;
  idempotencyKey: string | undefined;
  ip: string;
  /**
   * Made straight from this machine's loopback interface, not relayed by a proxy (the socket's address,
   * never a header), and naming this machine in its Host (localhost, 127.0.0.1, [::1]): apps/api/src/http/loopback.ts.
   */
  localRequest: boolean;
  userAgent: string | undefined;
  /** The scheme, host and port the request was made to, as the service sees them ("http://127.0.0.1:3000"). */
  origin?: string | undefined;
  /** The Accept-Language header as sent (docs/i18n.md#which-language). */
  acceptLanguage?: string | undefined;
  /**
   * The language of this request's answer once a signed-in user decided it (shared/i18n/answer-locale.ts
   * sets it); until then an answer follows Accept-Language only.
   */
  signedInLocale?: Locale | undefined;
  getCookie(name: string): string | undefined;
  setCookie(name: string, value: string, options: CookieOptions): void;
  clearCookie(name: string, options: CookieOptions): void;
  setHeader(name: string, value: string): void;
  /** Answer 202 Accepted instead of 200: the request was taken, its outcome is not known yet. */
  markAccepted(): void;
  /** Whether markAccepted was called (the transports read it when they set the status). */
  isAccepted(): boolean;
}

/** Responses that carry a token, secret or recovery code must not be cached (docs/http.md#no-store). */
export function noStore(ctx: { request: RequestInfo }): void {
  ctx.request.setHeader("Cache-Control", "no-store");
}
