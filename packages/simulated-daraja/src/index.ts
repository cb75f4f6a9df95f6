export { createDarajaSimulation } from "./simulation.js";
export type { DarajaSimulation, SimulationHooks } from "./simulation.js";
export { createSimulatedDarajaClient } from "./client.js";
export { inProcessTransport } from "./transport.js";
export type { QueryPendingMode, ResolvedSimulationOptions, SimulationLogger, SimulationOptions } from "./options.js";
export { createMemoryStore } from "./memory-store.js";
export type { RecordLookup, SimRecord, SimRecordKind, SimulationStore, StoredRecord } from "./records.js";
export { INITIAL_UTILITY_BALANCE } from "./context.js";
export type { OutcomeChooser } from "./context.js";
export { darajaError, invalidAccessToken, invalidField } from "./answers.js";
export type { DarajaAnswer, JsonBody } from "./answers.js";
export type { Exchange, LoggedCallback } from "./callback-sender.js";
export { OAUTH_PATH, SIM_APIS, SIM_OPERATIONS, SIMULATED_APIS } from "./apis.js";
export type { CallbackKind, SimApi, SimOperation, SimulationEndpoint } from "./apis.js";
export type { B2cVersion } from "./b2c.js";
export type { C2bPayRequest, C2bPayResult } from "./c2b.js";
export { C2B_LOST_CONFIRMATION_AMOUNT } from "./c2b.js";
export { SIM_ORGANIZATION_NAME } from "./pull.js";
export type { QrPayload, QrScanRequest, QrScanResult } from "./dynamic-qr.js";
export { readPng } from "./png.js";
export {
  SANDBOX_B2C_SHORTCODE,
  SANDBOX_INITIATOR_NAME,
  SANDBOX_INITIATOR_PASSWORD,
  SANDBOX_PASSKEY,
  SANDBOX_SHORTCODE,
  SIM_CONSUMER_KEY,
  SIM_CONSUMER_SECRET,
  SIM_DEFAULT_CALLBACK_DELAY_MS,
  simulationDefaults,
} from "./defaults.js";
export {
  B2C_MAGIC_AMOUNTS,
  B2C_OUTCOMES,
  REVERSAL_MAGIC_AMOUNTS,
  SIM_OUTCOMES,
  STK_MAGIC_AMOUNTS,
  STK_OUTCOMES,
} from "./outcomes.js";
export type { SimOutcome } from "./outcomes.js";
export { decryptSecurityCredential, generateSimulatorKeyPair, publicKeyPemFor } from "./credentials.js";
export type { SimulatorKeyPair } from "./credentials.js";
export { normalisePhone } from "./wire.js";
