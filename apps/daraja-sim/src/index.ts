export { buildDarajaSimulator } from "./server.js";
export type { DarajaSimulatorOptions, QueryPendingMode } from "./options.js";
export { SIM_DEFAULT_HOST, SIM_DEFAULT_PORT, simulatorDefaults } from "./defaults.js";
export { createSimulatorKeyFiles } from "./key-files.js";
export type { SimulatorKeyFiles } from "./key-files.js";
export type { LoggedRequest, QueuedOutcome } from "./state.js";
export { simulatorSettingsFromEnv } from "./env.js";
export type { SimulatorSettings } from "./env.js";
export { createSimScripts } from "./scripts.js";
export type { ReceivedRequest, SimAnswer, SimOperation, SimScript, SimScriptBook, SimScripts } from "./scripts.js";
// The simulated account, outcomes and keys are the provider's; re-exported for the simulator's users.
export {
  B2C_MAGIC_AMOUNTS,
  B2C_OUTCOMES,
  C2B_LOST_CONFIRMATION_AMOUNT,
  decryptSecurityCredential,
  generateSimulatorKeyPair,
  publicKeyPemFor,
  SANDBOX_B2C_SHORTCODE,
  SANDBOX_INITIATOR_NAME,
  SANDBOX_INITIATOR_PASSWORD,
  SANDBOX_PASSKEY,
  SANDBOX_SHORTCODE,
  SIM_CONSUMER_KEY,
  SIM_CONSUMER_SECRET,
  SIM_DEFAULT_CALLBACK_DELAY_MS,
  SIM_OUTCOMES,
  STK_MAGIC_AMOUNTS,
  STK_OUTCOMES,
} from "@mteja/simulated-daraja";
export type { CallbackKind, LoggedCallback, SimApi, SimOutcome, SimulatorKeyPair } from "@mteja/simulated-daraja";
