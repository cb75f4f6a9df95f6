import type { Context, CookieOptions } from "../../context.js";

export const refreshCookieName = "refresh_token";

function cookieOptions(ctx: Context): CookieOptions {
  return { httpOnly: true, secure: ctx.deps.config.cookieSecure, sameSite: "strict", path: "/api/v1/auth" };
}

export function setRefreshCookie(ctx: Context, token: string, expiresAt: Date): void {
  const maxAge = Math.max(0, Math.floor((expiresAt.getTime() - ctx.deps.clock.now().getTime()) / 1000));
  ctx.request.setCookie(refreshCookieName, token, { ...cookieOptions(ctx), maxAge });
}

export function clearRefreshCookie(ctx: Context): void {
  ctx.request.clearCookie(refreshCookieName, cookieOptions(ctx));
}

export function readRefreshCookie(ctx: Context): string | undefined {
  const value = ctx.request.getCookie(refreshCookieName);
  return value ? value : undefined;
}

/** Responses that carry a token, secret or recovery code must not be cached (docs/http.md#no-store). */
export function noStore(ctx: Context): void {
  ctx.request.setHeader("Cache-Control", "no-store");
}
