/**
 * The SMS side of the composition root (docs/sms.md): the outbox store on the database, the transport
 * (Africa's Talking when SMS_PROVIDER is set, the in-process simulator on the dev start, else the log
 * transport) and the worker that sends what the domain wrote to the outbox.
 */
import { randomBytes } from "node:crypto";
import { outboxes, type Database } from "@mteja/db";
import type { Logger, Random } from "@mteja/domain";
import type { OutboxRunResult } from "@mteja/kernel";
import { createSmsOutboxWorker, createSmsTransport } from "@mteja/sms";
import { buildSmsSimulator, smsSimulatorDefaults, type SmsSimulator } from "@mteja/sms-sim";
import type { Settings } from "../settings.js";

export interface SmsRuntime {
  nudge(): void;
  /** Claims and sends one batch now; for tests and tools. */
  runOnce(): Promise<OutboxRunResult>;
  /** The `?token=` delivery reports must carry; null: none is accepted. */
  callbackSecret: string | null;
  close(): Promise<void>;
}

function simulatorWanted(settings: Settings): boolean {
  return settings.MTEJA_DEV_START && !settings.SMS_PROVIDER && settings.NODE_ENV !== "production";
}

/** The dev start: the SMS simulator on 127.0.0.1:SMS_SIM_PORT, reporting deliveries to this service. */
async function startDevSimulator(settings: Settings, logger: Logger, secret: string): Promise<{ sim: SmsSimulator; url: string }> {
  const sim = buildSmsSimulator({
    deliveryReportUrl: `http://127.0.0.1:${settings.PORT}/api/sms/callback/delivery?token=${secret}`,
    senderIds: [settings.AT_SENDER_ID ?? smsSimulatorDefaults.senderIds[0]],
  });
  const url = await sim.listen({ host: "127.0.0.1", port: settings.SMS_SIM_PORT });
  logger.info({ url }, "SMS simulator started in-process (texts: GET /dev/outbox/texts or the simulator's /sim/messages)");
  return { sim, url };
}

export async function createSmsRuntime(settings: Settings, db: Database, logger: Logger, now: () => Date, random: Random): Promise<SmsRuntime> {
  const production = settings.NODE_ENV === "production";
  const simulated = simulatorWanted(settings);
  const callbackSecret = settings.SMS_CALLBACK_SECRET ?? (simulated ? randomBytes(32).toString("hex") : null);
  const dev = simulated ? await startDevSimulator(settings, logger, callbackSecret!) : undefined;
  const transport = createSmsTransport({
    provider: dev ? "africastalking" : settings.SMS_PROVIDER,
    africastalking: dev
      ? { baseUrl: dev.url, username: smsSimulatorDefaults.username, apiKey: smsSimulatorDefaults.apiKey, senderId: settings.AT_SENDER_ID ?? smsSimulatorDefaults.senderIds[0] }
      : settings.AT_USERNAME && settings.AT_API_KEY
        ? { baseUrl: settings.AT_BASE_URL, username: settings.AT_USERNAME, apiKey: settings.AT_API_KEY, senderId: settings.AT_SENDER_ID }
        : undefined,
    logger,
    // Bodies carry sign-in codes.
    logBodies: !production,
    now,
  });
  if (!settings.SMS_PROVIDER && !dev) logger.info({}, "No SMS provider configured (SMS_PROVIDER unset): texts are logged and kept in the dev outbox");
  // Outside production the bodies stay, so the dev outbox (GET /dev/outbox/texts) can show the codes.
  const store = outboxes.createTextStore(db.unscoped, { scrubBodiesOnSend: production });
  const worker = createSmsOutboxWorker({ store, transport, logger, now, random });
  worker.start();
  return {
    nudge: () => worker.nudge(),
    runOnce: () => worker.runOnce(),
    callbackSecret,
    close: async () => {
      await worker.stop();
      await dev?.sim.close();
    },
  };
}
