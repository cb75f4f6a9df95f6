/** What the Google simulator uses unless told otherwise (docs/sign-in.md#sign-in-with-google). */
export const googleSimulatorDefaults = {
  /** The OAuth client the dev start registers for the demo shop (any id works once added). */
  clientId: "mteja-dev.apps.googleusercontent.test",
  clientSecret: "sim-google-client-secret",
  port: 4030,
  /** An ID token's lifetime, as Google's (one hour). */
  idTokenSeconds: 3600,
} as const;
