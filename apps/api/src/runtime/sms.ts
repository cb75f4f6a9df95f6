/**
 * The SMS side of the composition root (docs/sms.md): the outbox store on the database, the transport
 * (Africa's Talking when SMS_PROVIDER is set, the in-process simulator on the dev start (dev-simulators.ts),
 * else the log transport) and the worker that sends what the domain wrote to the outbox.
 */
import { randomBytes } from "node:crypto";
import { leases, outboxes, type Database } from "@mteja/db";
import type { Logger, Random } from "@mteja/domain";
import type { OutboxRunResult } from "@mteja/shared";
import { createSmsOutboxWorker, createSmsTransport } from "@mteja/sms";
import type { Settings } from "../settings.js";
import { startDevSms } from "./dev-simulators.js";

export interface SmsRuntime {
  nudge(): void;
  /** Claims and sends one batch now; for tests and tools. */
  runOnce(): Promise<OutboxRunResult>;
  /** The `?token=` delivery reports must carry; null: none is accepted. */
  callbackSecret: string | null;
  close(): Promise<void>;
}

/** Whether this start runs the SMS simulator in-process (on SMS_SIM_PORT). */
export function smsSimulatorWanted(settings: Settings): boolean {
  return settings.MTEJA_DEV_START && !settings.SMS_PROVIDER && settings.NODE_ENV !== "production";
}

export async function createSmsRuntime(settings: Settings, db: Database, logger: Logger, now: () => Date, random: Random): Promise<SmsRuntime> {
  const production = settings.NODE_ENV === "production";
  const simulated = smsSimulatorWanted(settings);
  const callbackSecret = settings.SMS_CALLBACK_SECRET ?? (simulated ? randomBytes(32).toString("hex") : null);
  const dev = simulated ? await startDevSms(settings, logger, callbackSecret!) : undefined;
  const transport = createSmsTransport({
    provider: dev ? "africastalking" : settings.SMS_PROVIDER,
    africastalking: dev
      ? { baseUrl: dev.baseUrl, username: dev.username, apiKey: dev.apiKey, senderId: dev.senderId }
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
  const store = {
    ...outboxes.createTextStore(db.unscoped("worker"), { scrubBodiesOnSend: production }),
    renewLeases: (held: readonly leases.HeldLease[], until: Date) =>
      leases.renew(db.unscoped("worker"), "sms_outbox", held, until),
  };
  const leaseMs = settings.OUTBOX_LEASE_SECONDS * 1000;
  const worker = createSmsOutboxWorker({ store, transport, logger, now, random, leaseMs });
  worker.start();
  return {
    nudge: () => worker.nudge(),
    runOnce: () => worker.runOnce(),
    callbackSecret,
    close: async () => {
      await worker.stop();
      await dev?.close();
    },
  };
}
