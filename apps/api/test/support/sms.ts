/**
 * The Africa's Talking of the API tests: the SMS simulator (apps/sms-sim) on 127.0.0.1:0, and a
 * service configured to send through it (SMS_PROVIDER=africastalking, AT_BASE_URL = the simulator),
 * its delivery reports coming back to the service's callback with the secret token.
 */
import { randomInt } from "node:crypto";
import { buildSmsSimulator, smsSimulatorDefaults, type ReceivedText, type SmsSimulator } from "@mteja/sms-sim";
import { expect } from "vitest";
import { startTestApp, type TestApp, type TestAppOptions } from "./app.js";

export const SMS_CALLBACK_SECRET = "sms-callback-secret-0123456789abcdef0123";
export const SENDER_ID = "MTEJA";

/** A service texting through an SMS simulator of its own, the simulator's reports coming back to it. */
export interface SmsApp {
  app: TestApp;
  sim: SmsSimulator;
  /** Closes the service, then the simulator it texts. */
  close(): Promise<void>;
}

/** Starts an SMS simulator, then a service (with `env` added to its SMS settings) texting through it. */
export async function startSmsApp(env: Record<string, string> = {}, options: TestAppOptions = {}): Promise<SmsApp> {
  const sim = buildSmsSimulator({ dlrDelayMs: 5, senderIds: [SENDER_ID] });
  const url = await sim.listen({ host: "127.0.0.1", port: 0 });
  let app: TestApp;
  try {
    app = await startTestApp({ ...smsEnv(url), ...env }, options);
  } catch (error) {
    await sim.close();
    throw error;
  }
  sim.setDeliveryReportUrl(`${app.url}/api/sms/callback/delivery?token=${SMS_CALLBACK_SECRET}`);
  return {
    app,
    sim,
    close: async () => {
      try {
        await app.close();
      } finally {
        await sim.close();
      }
    },
  };
}

/** The settings of a service texting through the simulator at `url`. */
function smsEnv(url: string): Record<string, string> {
  return {
    SMS_PROVIDER: "africastalking",
    AT_USERNAME: smsSimulatorDefaults.username,
    AT_API_KEY: smsSimulatorDefaults.apiKey,
    AT_SENDER_ID: SENDER_ID,
    AT_BASE_URL: url,
    SMS_CALLBACK_SECRET,
  };
}

// Consecutive numbers from a random start: unique within the process by construction. A random part
// added to each number made two numbers of one file equal now and then (~50 in 100,000).
const firstPhone = randomInt(0, 1e8);
let counter = 0;
/** A Kenyan mobile number no other test uses, as a customer types it (07…). */
export function uniquePhone(): { local: string; stored: string; international: string } {
  counter += 1;
  const digits = String((firstPhone + counter) % 1e8).padStart(8, "0");
  return { local: `07${digits}`, stored: `2547${digits}`, international: `+2547${digits}` };
}

export function textsTo(sim: SmsSimulator, international: string): ReceivedText[] {
  return sim.texts.filter((text) => text.to === international);
}

/**
 * Waits for the `nth` text (1-based) to the phone, or the first later one, that carries a 6-digit code
 * and returns the code. Security notices (a factor changed, two-factor turned on) carry none and are
 * written by the same requests, so they may land in between.
 */
export async function codeTexted(sim: SmsSimulator, international: string, nth = 1): Promise<string> {
  const codeFrom = () =>
    textsTo(sim, international)
      .slice(nth - 1)
      .map((text) => /\b(\d{6})\b/.exec(text.message)?.[1])
      .find((code) => code !== undefined);
  await expect.poll(codeFrom, { timeout: 10_000 }).toBeDefined();
  return codeFrom()!;
}
