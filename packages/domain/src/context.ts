import type { Database } from "@mteja/db";
import type { Locale } from "@mteja/i18n";
import type { AccessTokens } from "./auth/tokens/access-tokens.js";
import type { DataCipher } from "./shared/data-cipher.js";
import type { Limiter } from "./shared/limiter.js";
import type { PasswordHasher } from "./auth/passwords.js";
import type { RefreshSuccessor } from "./auth/sessions/refresh-successor.js";
import type { MomoDeps } from "./payments/kernel/momo-deps.js";
import type { TenantDirectory } from "./shared/tenant.js";
import type { DomainConfig } from "./shared/config.js";
import type { Clock, Random } from "./shared/ports.js";
import type { DomainEvents } from "./shared/events.js";
import type { WebhookDeps } from "./webhooks/webhook-deps.js";

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

export interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
}

/** Long-lived services, built once by the composition root. */
export interface Deps {
  db: Database;
  config: DomainConfig;
  /** All time (the service clock, real pauses) and all chance (tokens, ids, jitter) come from these two ports. */
  clock: Clock;
  random: Random;
  tokens: AccessTokens;
  passwords: PasswordHasher;
  tenants: TenantDirectory;
  limiter: Limiter;
  cipher: DataCipher;
  /** Derives a refresh token's successor with a server key (a keyed hash of the presented token). */
  refreshSuccessor: RefreshSuccessor;
  /** Asks the mail worker to look at the outbox soon (after a commit that wrote mail). */
  nudgeMail: () => void;
  /** Asks the SMS worker to look at its outbox soon (after a commit that wrote a text). */
  nudgeSms: () => void;
  logger: Logger;
  /** What the domain reports as it happens (sign-in outcomes), counted by the composition root. */
  events: DomainEvents;
  /** M-Pesa (Daraja) clients, callback settings and payment status events. */
  momo: MomoDeps;
  /** Endpoint URL checks and the delivery worker's nudge. */
  webhooks: WebhookDeps;
}

export interface Context {
  deps: Deps;
  request: RequestInfo;
}
