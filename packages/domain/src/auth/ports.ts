/**
 * What the auth area (sign-in, sessions, tokens, recovery, phone, email, step-up, two-factor) needs
 * from the composition root, and its requests' context. It records security events and sends texts,
 * so it has their areas' ports too.
 */
import type { DataCipher } from "../shared/data-cipher.js";
import type { Random } from "../shared/ports.js";
import type { AuthedCtx as AuthedCtxOf, RequestCtx, TenantCtx as TenantCtxOf } from "../shared/request-context.js";
import type { SecurityEventPorts } from "../security-events/ports.js";
import type { SmsPorts } from "../sms/ports.js";
import type { PasswordHasher } from "./passwords.js";
import type { RefreshSuccessor } from "./sessions/refresh-successor.js";
import type { AccessTokens } from "./tokens/access-tokens.js";
import type { GoogleIdentityProvider } from "./google/identity-provider.js";

export interface AuthPorts extends SecurityEventPorts, SmsPorts {
  random: Random;
  tokens: AccessTokens;
  passwords: PasswordHasher;
  /** Derives a refresh token's successor with a server key (a keyed hash of the presented token). */
  refreshSuccessor: RefreshSuccessor;
  /** Two-factor secrets at rest. */
  cipher: DataCipher;
  /** Asks the mail worker to look at the outbox soon (after a commit that wrote mail). */
  nudgeMail: () => void;
  /** Asks the SMS worker to look at its outbox soon (after a commit that wrote a text). */
  nudgeSms: () => void;
  /** Google's OpenID provider (OIDC_GOOGLE_ISSUER), for Sign in with Google. */
  google: GoogleIdentityProvider;
}

export type Context = RequestCtx<AuthPorts>;
export type TenantCtx = TenantCtxOf<AuthPorts>;
export type AuthedCtx = AuthedCtxOf<AuthPorts>;

