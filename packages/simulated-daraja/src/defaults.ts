/**
 * The public Daraja sandbox values (docs/daraja-wire-format.md#sandbox), so a client configured for the sandbox also
 * works against the simulator. The consumer key/secret are the simulator's own.
 */
export const SANDBOX_SHORTCODE = "174379";
export const SANDBOX_PASSKEY = "bfb279f9aa9bdbcf158e97dd71a467cd2e0c893059b10f78e6b72ada1ed2c919";
export const SANDBOX_B2C_SHORTCODE = "600992";
export const SANDBOX_INITIATOR_NAME = "testapi";
export const SANDBOX_INITIATOR_PASSWORD = "Safaricom999!*!";
export const SIM_CONSUMER_KEY = "mteja-sim-key";
export const SIM_CONSUMER_SECRET = "mteja-sim-secret";
export const SIM_DEFAULT_CALLBACK_DELAY_MS = 1500;

export const simulationDefaults = {
  consumerKey: SIM_CONSUMER_KEY,
  consumerSecret: SIM_CONSUMER_SECRET,
  shortcode: SANDBOX_SHORTCODE,
  passkey: SANDBOX_PASSKEY,
  b2cShortcode: SANDBOX_B2C_SHORTCODE,
  initiatorName: SANDBOX_INITIATOR_NAME,
  initiatorPassword: SANDBOX_INITIATOR_PASSWORD,
  callbackDelayMs: SIM_DEFAULT_CALLBACK_DELAY_MS,
} as const;
