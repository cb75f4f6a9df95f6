import type { Context } from "../ports.js";
import type { CookieOptions } from "../../shared/request.js";

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
