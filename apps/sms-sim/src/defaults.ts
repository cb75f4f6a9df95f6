/** What the simulator accepts unless told otherwise (docs/sms.md). */
export const smsSimulatorDefaults = {
  username: "sandbox",
  apiKey: "sim-at-api-key",
  senderIds: ["MTEJA"],
  /** Per part: Africa's Talking's sample cost. */
  costPerPart: 0.8,
  dlrDelayMs: 50,
  port: 4020,
} as const;
