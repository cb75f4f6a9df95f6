/**
 * The tRPC link that makes access-token expiry invisible to callers: a query, mutation or subscription
 * answered INVALID_TOKEN (401) is retried once after a refresh (a subscription only before its first
 * event), and every successful result that carries an `access_token` (register, login, otp/validate,
 * refresh) becomes the token of later calls.
 */
import type { TRPCLink } from "@trpc/client";
import type { AnyRouter } from "@trpc/server";
import { observable, type Unsubscribable } from "@trpc/server/observable";
import { isExpiredAccessToken } from "./errors.js";
import type { Session } from "./session.js";

/** Procedures whose own INVALID_TOKEN is not about the access token. */
const neverRetried = new Set(["auth.refresh", "auth.logout"]);

export function refreshLink<TRouter extends AnyRouter>(session: Session): TRPCLink<TRouter> {
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

        attempt(false);
        return () => {
          stopped = true;
          current?.unsubscribe();
        };
      });
    };
}
