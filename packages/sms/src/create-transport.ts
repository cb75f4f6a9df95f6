import { createAfricasTalkingClient } from "./africastalking.js";
import { createSmsLogTransport, type SmsLogger } from "./log-transport.js";
import type { SmsTransport } from "./transport.js";

export interface SmsTransportOptions {
  /** SMS_PROVIDER; absent: texts are logged, not sent. */
  provider?: "africastalking" | undefined;
  africastalking?: { baseUrl: string; username: string; apiKey: string; senderId?: string | undefined } | undefined;
  logger: SmsLogger;
  logBodies: boolean;
  now?: () => Date;
  fetch?: typeof globalThis.fetch;
}

export function createSmsTransport(options: SmsTransportOptions): SmsTransport {
  if (options.provider === "africastalking" && options.africastalking) {
    const client = createAfricasTalkingClient({ ...options.africastalking, ...(options.fetch ? { fetch: options.fetch } : {}) });
    return { send: (text, opts) => client.send({ to: text.to, message: text.body }, opts) };
  }
  return createSmsLogTransport({ logger: options.logger, logBodies: options.logBodies, ...(options.now ? { now: options.now } : {}) });
}
