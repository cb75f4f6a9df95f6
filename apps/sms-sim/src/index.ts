export { smsSimulatorDefaults } from "./defaults.js";
export { buildSmsSimulator, type DeliveryReportSent, type ReceivedText, type SmsScript, type SmsSimulator, type SmsSimulatorOptions } from "./server.js";
export { partsOf } from "./wire.js";
