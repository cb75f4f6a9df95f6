/** Settings the domain needs, already validated by the composition root. */
export interface DomainConfig {
  nodeEnv: "development" | "production" | "test";
  defaultTenantId: string;
  appUrl: string;
  /** PUBLIC_URL: where the service itself is reached from outside (Google's callback); unset, the request's own address. */
  publicUrl: string | undefined;
  cookieSecure: boolean;
  adminApiKey: string | undefined;
  /** The dev start's known key: accepted only from a local request (direct loopback, local Host). */
  adminApiKeyLoopbackOnly: boolean;
  rateLimits: boolean;
  /** ACCESS_TOKEN_TTL_SECONDS: an access token's lifetime. */
  accessTokenTtlSeconds: number;
  /** REFRESH_IDLE_SECONDS: a session ends this long after its last refresh (docs/sessions.md#refresh-cookie). */
  refreshIdleSeconds: number;
  /** REFRESH_ABSOLUTE_SECONDS: a session ends this long after its sign-in, refreshed or not. */
  refreshAbsoluteSeconds: number;
  /** REFRESH_REUSE_GRACE_SECONDS: a replaced refresh cookie still gets its successor this long (docs/sessions.md#grace). */
  refreshReuseGraceSeconds: number;
  issuer: string;
  audience: string;
  /** STEP_UP_WINDOW_SECONDS: how long a session stays fresh after a sign-in or reauthenticate (docs/step-up.md). */
  stepUpWindowSeconds: number;
  /** PHONE_CODE_TTL_SECONDS: how long a texted code lasts (docs/phone-sign-in.md). */
  phoneCodeTtlSeconds: number;
  /** SMS_CALLBACK_SECRET: the `?token=` of Africa's Talking's delivery reports; null refuses them all. */
  smsCallbackSecret: string | null;
}

/** How the signing keys are re-read: fixed, not settings. */
export const tokenDefaults = {
  /** Each instance re-reads the signing keys this often, so a rotation reaches it without a restart. */
  signingKeysMaxAgeSeconds: 60,
  /** A token signed by a key an instance does not know makes it re-read the keys, at most this often. */
  unknownKidReloadSeconds: 1,
} as const;
