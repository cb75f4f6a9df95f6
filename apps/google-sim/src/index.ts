export { googleSimulatorDefaults } from "./defaults.js";
export { accountOf, subjectOf, type SimAccount } from "./accounts.js";
export { buildGoogleSimulator, type GoogleSimulator, type MintRequest, type SimClient } from "./server.js";
