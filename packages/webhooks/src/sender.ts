/**
 * Sends one webhook delivery: a POST that never follows a redirect, ends after the time-out, connects
 * only to addresses the guard allows, and reports what happened instead of throwing.
 */
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { createAddressGuard, type AddressGuard } from "./address-guard.js";

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** Ends the attempt at once (its error says so): the sender no longer holds the delivery's lease. */
  signal?: AbortSignal;
}

/** A 2xx acknowledges; anything else (a status, or an error before one) is a failed attempt. */
export interface WebhookResponse {
  statusCode: number | null;
  error: string | null;
  acknowledged: boolean;
}

export interface WebhookSender {
  send(request: WebhookRequest): Promise<WebhookResponse>;
  /** Closes the connections kept for the next deliveries. */
  close(): void;
}

export interface WebhookSenderOptions {
  /** Outside production, loopback and private addresses are allowed (WEBHOOK_ALLOW_PRIVATE_URLS). */
  allowPrivateAddresses: boolean;
  /** The whole attempt, connection included (default 10 s). */
  timeoutMs?: number;
  /** Sent as User-Agent. */
  userAgent?: string;
}

const maxResponseBytes = 16 * 1024;

/**
 * How long a connection is kept for the next delivery to the same host: below the idle time-outs
 * servers commonly close on (5 s and more), so a delivery is not sent on a connection the receiver is
 * closing. A receiver's own `Keep-Alive: timeout` is honoured when shorter.
 */
export const keptConnectionIdleMs = 2_000;

/** The attempt's error (shown to the shop): names the guard's rule, never the address. */
export class RefusedAddressError extends Error {
  constructor(readonly rule: string) {
    super(`refused: the host is not a public address (rule: ${rule})`);
    this.name = "RefusedAddressError";
  }
}

/** How names are resolved: node's dns.lookup, asked for every address. */
export type ResolveAll = (hostname: string, options: { all: true }, callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

const resolveAll: ResolveAll = (hostname, options, callback) => dnsLookup(hostname, options, callback);

/**
 * A dns.lookup that fails the connection when any resolved address is refused by the guard. It runs
 * for every new connection, so the check is made when sending, whatever the name resolved to when the
 * endpoint was added; a connection kept alive goes on to the address that was checked when it opened.
 */
export function guardedLookup(guard: AddressGuard, resolve: ResolveAll = resolveAll): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, "", 0);
      for (const entry of addresses) {
        const rule = guard.refusal(entry.address);
        if (rule) return callback(new RefusedAddressError(rule), "", 0);
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const first = addresses[0]!;
      callback(null, first.address, first.family);
    });
  };
}

export function createWebhookSender(options: WebhookSenderOptions): WebhookSender {
  const guard = createAddressGuard({ allowPrivate: options.allowPrivateAddresses });
  const lookup = guardedLookup(guard);
  const timeoutMs = options.timeoutMs ?? 10_000;
  // Connections kept between deliveries (a new one per delivery cost a handshake's CPU on both sides).
  const kept = { keepAlive: true, timeout: keptConnectionIdleMs };
  const agents = { http: new http.Agent(kept), https: new https.Agent(kept) };
  return {
    close() {
      agents.http.destroy();
      agents.https.destroy();
    },
    send(request) {
      return new Promise((resolve) => {
        let settled = false;
        let timer: NodeJS.Timeout | undefined;
        const finish = (response: Omit<WebhookResponse, "acknowledged">) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          const ok = response.statusCode !== null && response.statusCode >= 200 && response.statusCode < 300;
          resolve({ ...response, acknowledged: ok });
        };
        let url: URL;
        try {
          url = new URL(request.url);
        } catch {
          return finish({ statusCode: null, error: "invalid URL" });
        }
        if (url.protocol !== "https:" && url.protocol !== "http:") return finish({ statusCode: null, error: "unsupported protocol" });
        // A literal IP address skips dns.lookup, so the guard is asked directly.
        const literal = url.hostname.replace(/^\[|\]$/g, "");
        const literalRule = /^[\d.]+$|:/.test(literal) ? guard.refusal(literal) : null;
        if (literalRule) return finish({ statusCode: null, error: new RefusedAddressError(literalRule).message });
        const secure = url.protocol === "https:";
        const transport = secure ? https : http;
        const outgoing = transport.request(url, {
          method: "POST",
          lookup,
          agent: secure ? agents.https : agents.http,
          headers: { ...request.headers, "content-length": String(Buffer.byteLength(request.body)), "user-agent": options.userAgent ?? "Mteja-Webhooks/1" },
        });
        timer = setTimeout(() => {
          outgoing.destroy(new Error(`timed out after ${timeoutMs} ms`));
        }, timeoutMs);
        const abort = () => outgoing.destroy(new Error("aborted: the delivery's lease was lost"));
        if (request.signal?.aborted) abort();
        request.signal?.addEventListener("abort", abort, { once: true });
        outgoing.once("close", () => request.signal?.removeEventListener("abort", abort));
        outgoing.on("error", (error) => finish({ statusCode: null, error: error.message }));
        outgoing.on("response", (response) => {
          // Redirects are answers like any other: a 3xx is not followed and does not acknowledge.
          let received = 0;
          response.on("data", (chunk: Buffer) => {
            received += chunk.length;
            if (received > maxResponseBytes) response.destroy();
          });
          response.on("close", () => finish({ statusCode: response.statusCode ?? null, error: null }));
          response.on("error", () => finish({ statusCode: response.statusCode ?? null, error: null }));
        });
        outgoing.end(request.body);
      });
    },
  };
}
