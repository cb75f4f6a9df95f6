export { buildDarajaSimulator } from "./server.js";
export type { DarajaSimulatorOptions, QueryPendingMode } from "./options.js";
export {
  SANDBOX_B2C_SHORTCODE,
  SANDBOX_INITIATOR_NAME,
  SANDBOX_INITIATOR_PASSWORD,
  SANDBOX_PASSKEY,
  SANDBOX_SHORTCODE,
  SIM_CONSUMER_KEY,
  SIM_CONSUMER_SECRET,
  SIM_DEFAULT_CALLBACK_DELAY_MS,
  SIM_DEFAULT_HOST,
  SIM_DEFAULT_PORT,
  simulatorDefaults,
} from "./defaults.js";
export { B2C_MAGIC_AMOUNTS, B2C_OUTCOMES, SIM_OUTCOMES, STK_MAGIC_AMOUNTS, STK_OUTCOMES } from "./outcomes.js";
export type { SimApi, SimOutcome } from "./outcomes.js";
export { createSimulatorKeyFiles, decryptSecurityCredential, generateSimulatorKeyPair, publicKeyPemFor } from "./credentials.js";
export type { SimulatorKeyFiles, SimulatorKeyPair } from "./credentials.js";
export type { CallbackKind, LoggedCallback, LoggedRequest, QueuedOutcome } from "./state.js";
export { simulatorSettingsFromEnv } from "./env.js";
export type { SimulatorSettings } from "./env.js";
export { createSimScripts } from "./scripts.js";
export type { ReceivedRequest, SimAnswer, SimOperation, SimScript, SimScriptBook, SimScripts } from "./scripts.js";
