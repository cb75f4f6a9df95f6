/**
 * Africa's Talking's SMS API (docs/sms.md): `POST {base}/version1/messaging`, form-encoded, the app's
 * key in the `apiKey` header, JSON asked for with `Accept`. One recipient per request, so one answer
 * per outbox row. The answer is read in three layers, each with its own way of failing:
 *
 *   HTTP      401 comes back as plain text ("The supplied authentication is invalid"); any other
 *             non-2xx is opaque text.
 *   request   `SMSMessageData.Recipients` empty: the whole request was refused and
 *             `SMSMessageData.Message` says why (e.g. `InvalidSenderId`).
 *   recipient `Recipients[0].statusCode`: 100–102 accepted (not yet delivered), others refused.
 */
import ky, { isTimeoutError } from "ky";
import { SmsDeliveryError } from "./delivery-error.js";
import type { SmsSendResult } from "./outbox.js";

export const AFRICASTALKING_LIVE_URL = "https://api.africastalking.com";

export interface AfricasTalkingOptions {
  /** AT_BASE_URL: the live API, the sandbox (`https://api.sandbox.africastalking.com`) or a simulator. */
  baseUrl: string;
  username: string;
  apiKey: string;
  /** A registered transactional sender ID (or short code); absent: Africa's Talking's default. */
  senderId?: string | undefined;
  timeoutMs?: number;
  fetch?: typeof globalThis.fetch;
}

export interface AfricasTalkingMessage {
  to: string;
  message: string;
}

/** Accepted: queued or sent by Africa's Talking; "Success" here is not delivery. */
const ACCEPTED_CODES: ReadonlySet<number> = new Set([100, 101, 102]);
/**
 * Refusals that may pass if tried again later: Africa's Talking's own errors (500, 501), and the
 * account's (402 a sender ID not yet registered, 405 balance used up), which an operator can fix.
 * Every other code is about this recipient (invalid, blacklisted, unroutable) and is final.
 */
const RETRYABLE_CODES: ReadonlySet<number> = new Set([500, 501]);
const ACCOUNT_CODES: ReadonlySet<number> = new Set([402, 405]);

interface Recipient {
  statusCode: number;
  status: string;
  number: string;
  messageId: string;
  cost: string;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function recipientOf(value: unknown): Recipient | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const r = value as Record<string, unknown>;
  if (typeof r.statusCode !== "number" || typeof r.status !== "string") return undefined;
  return {
    statusCode: r.statusCode,
    status: r.status,
    number: typeof r.number === "string" ? r.number : "",
    messageId: typeof r.messageId === "string" ? r.messageId : "None",
    cost: typeof r.cost === "string" ? r.cost : "0",
  };
}

/**
 * Reads one answer of `/version1/messaging` for a single recipient. Returns the outcome, or throws
 * an `SmsDeliveryError` when the text should be tried again.
 */
export function readSendAnswer(status: number, text: string): SmsSendResult {
  if (status === 401) {
    throw new SmsDeliveryError(`Africa's Talking refused the credentials (401: ${text.trim().slice(0, 80)})`, { providerUnavailable: true });
  }
  if (status < 200 || status > 299) {
    throw new SmsDeliveryError(`Africa's Talking answered HTTP ${status}`, { providerUnavailable: status >= 500 || status === 429 });
  }
  const body = parseJson(text) as { SMSMessageData?: { Message?: unknown; Recipients?: unknown } } | undefined;
  const data = body?.SMSMessageData;
  if (typeof data !== "object" || data === null || !Array.isArray(data.Recipients)) {
    throw new SmsDeliveryError(`Africa's Talking answered HTTP ${status} without SMSMessageData`, { providerUnavailable: true });
  }
  if (data.Recipients.length === 0) {
    const reason = typeof data.Message === "string" ? data.Message : "no reason given";
    // The whole request was refused (e.g. InvalidSenderId): every text would be, until the account is fixed.
    throw new SmsDeliveryError(`Africa's Talking refused the request: ${reason.slice(0, 120)}`, { providerUnavailable: true });
  }
  const recipient = recipientOf(data.Recipients[0]);
  if (!recipient) throw new SmsDeliveryError("Africa's Talking answered a recipient without statusCode", { providerUnavailable: true });
  const messageId = recipient.messageId && recipient.messageId !== "None" ? recipient.messageId : null;
  if (ACCEPTED_CODES.has(recipient.statusCode)) return { outcome: "accepted", messageId, status: recipient.status };
  if (RETRYABLE_CODES.has(recipient.statusCode) || ACCOUNT_CODES.has(recipient.statusCode)) {
    throw new SmsDeliveryError(`Africa's Talking refused the text: ${recipient.statusCode} ${recipient.status}`, {
      providerUnavailable: ACCOUNT_CODES.has(recipient.statusCode),
    });
  }
  return { outcome: "rejected", messageId, status: `${recipient.statusCode} ${recipient.status}` };
}

export interface AfricasTalkingClient {
  send(message: AfricasTalkingMessage, opts?: { signal?: AbortSignal }): Promise<SmsSendResult>;
}

export function createAfricasTalkingClient(options: AfricasTalkingOptions): AfricasTalkingClient {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const http = ky.create({
    prefix: options.baseUrl,
    timeout: timeoutMs,
    retry: 0,
    throwHttpErrors: false,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  return {
    async send(message, opts = {}) {
      const form = new URLSearchParams({ username: options.username, to: message.to, message: message.message });
      if (options.senderId) form.set("from", options.senderId);
      let status: number;
      let text: string;
      try {
        const response = await http.post("version1/messaging", {
          headers: { apiKey: options.apiKey, Accept: "application/json" },
          body: form,
          ...(opts.signal ? { signal: opts.signal } : {}),
        });
        status = response.status;
        text = await response.text();
      } catch (error) {
        const reason = isTimeoutError(error) ? `no answer within ${timeoutMs} ms` : "could not be reached";
        throw new SmsDeliveryError(`Africa's Talking ${reason}`, { providerUnavailable: true, cause: error });
      }
      return readSendAnswer(status, text);
    },
  };
}
