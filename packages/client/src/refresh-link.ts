/**
 * The tRPC link that makes access-token expiry invisible to callers: a call made when the token expires
 * within `marginSeconds` refreshes it first; a query, mutation or subscription answered INVALID_TOKEN
 * (401) is retried once after a refresh (a subscription only before its first event), and every
 * successful result that carries an `access_token` (register, login, otp/validate, refresh) becomes
 * the token of later calls.
 */
import type { TRPCLink } from "@trpc/client";
import type { AnyRouter } from "@trpc/server";
import { observable, type Unsubscribable } from "@trpc/server/observable";
import { expiresWithin } from "./auth-state.js";
import { isExpiredAccessToken } from "./errors.js";
import type { Session } from "./session.js";

/** Procedures whose own INVALID_TOKEN is not about the access token. */
const neverRetried = new Set(["auth.refresh", "auth.logout"]);

export interface RefreshTiming {
  /** Refresh before a call when the access token expires within this many seconds. */
  marginSeconds: number;
  /** The time in milliseconds (Date.now unless given). */
  now: () => number;
}

export function refreshLink<TRouter extends AnyRouter>(session: Session, timing: RefreshTiming): TRPCLink<TRouter> {
  return () =>
    ({ op, next }) => {
      return observable((observer) => {
        let current: Unsubscribable | undefined;
        let stopped = false;
        // A subscription is retried only while nothing reached the caller (its first connection).
        let delivered = false;

        const attempt = (retried: boolean) => {
          const tokenUsed = session.getAccessToken();
          current = next(op).subscribe({
            next(envelope) {
              const result = envelope.result as { type?: string; data?: { data?: { access_token?: unknown } } };
              if (result.type === undefined || result.type === "data") delivered = true;
              const data = result.data;
              const token = data?.data?.access_token;
              if (typeof token === "string") session.setAccessToken(token);
              if (op.path === "auth.logout") session.setAccessToken(null);
              observer.next(envelope);
            },
            error(error) {
              if (retried || delivered || tokenUsed === null || neverRetried.has(op.path) || !isExpiredAccessToken(error)) {
                observer.error(error);
                return;
              }
              // Another call may have refreshed while this one was in flight: use its token.
              const fresh = session.getAccessToken();
              const ready = fresh !== null && fresh !== tokenUsed ? Promise.resolve(fresh) : session.refresh();
              ready.then(
                () => {
                  if (!stopped) attempt(true);
                },
                (refreshError: unknown) => observer.error(refreshError as typeof error),
              );
            },
            complete() {
              observer.complete();
            },
          });
        };

        // Refreshing ahead costs one request instead of a refused call and its retry. If it fails the
        // call still goes: a 401 then takes the usual path (and a session that is over has no token).
        if (session.getAccessToken() !== null && !neverRetried.has(op.path) && expiresWithin(session.getAuthState(), timing.marginSeconds, timing.now())) {
          session.refresh().then(
            () => !stopped && attempt(false),
            () => !stopped && attempt(false),
          );
        } else {
          attempt(false);
        }
        return () => {
          stopped = true;
          current?.unsubscribe();
        };
      });
    };
}
