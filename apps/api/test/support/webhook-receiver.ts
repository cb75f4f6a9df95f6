/**
 * A real HTTP receiver for webhook tests: records each delivery and answers as the test scripts it.
 * Every delivery is also held against the event catalogue (the document's `webhooks`): an event whose
 * `data` breaks its type's schema fails the test that waits for it.
 */
import { webhookEventCatalogue } from "@mteja/domain";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedDelivery {
  headers: Record<string, string | string[] | undefined>;
  body: string;
  event: { id: string; type: string; created_at: string; tenant_id: string; livemode: boolean; data: Record<string, any> };
}

export interface ReceiverAnswer {
  status: number;
  headers?: Record<string, string>;
}

export interface Receiver {
  url: string;
  received: ReceivedDelivery[];
  /** Waits until `count` deliveries matching `match` arrived; answers them. */
  waitFor(match: (delivery: ReceivedDelivery) => boolean, count?: number, timeoutMs?: number): Promise<ReceivedDelivery[]>;
  close(): Promise<void>;
}

/** `answer(n)` is the answer to the n-th delivery (from 1); 200 by default. */
export async function startReceiver(answer: (n: number, delivery: ReceivedDelivery) => ReceiverAnswer = () => ({ status: 200 })): Promise<Receiver> {
  const received: ReceivedDelivery[] = [];
  const breaches: string[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const delivery = { headers: request.headers, body, event: JSON.parse(body) as ReceivedDelivery["event"] };
      const broken = schemaBreach(delivery.event);
      if (broken) breaches.push(broken);
      received.push(delivery);
      const { status, headers = {} } = answer(received.length, delivery);
      response.writeHead(status, headers).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    async waitFor(match, count = 1, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        if (breaches.length) throw new Error(`deliveries that break their event's schema: ${breaches.join("; ")}`);
        const found = received.filter(match);
        if (found.length >= count) return found;
        if (Date.now() > deadline) throw new Error(`receiver got ${found.length} of ${count} matching deliveries (${received.length} in all)`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Why an event breaks its type's documented `data` (a field missing, mistyped or not documented), if it does. */
function schemaBreach(event: ReceivedDelivery["event"]): string | undefined {
  const entry = (webhookEventCatalogue as Record<string, { data: import("zod").ZodObject } | undefined>)[event.type];
  if (!entry) return `${event.type}: not in the catalogue`;
  const parsed = entry.data.strict().safeParse(event.data);
  return parsed.success ? undefined : `${event.type} ${event.id}: ${parsed.error.message}`;
}

export interface HangingReceiver {
  /** The URL of one of its paths (an endpoint each). */
  url(path: string): string;
  /** Requests received so far, by path. */
  received: string[];
  /** The most requests it held open at once: in all, and on one path. */
  maxOpen(): { total: number; perPath: number };
  close(): Promise<void>;
}

/**
 * A receiver that takes each request and never answers it: the endpoint of a shop whose server hangs.
 * Every request stays open until the sender gives up (its time-out) or the receiver closes.
 */
export async function startHangingReceiver(): Promise<HangingReceiver> {
  const received: string[] = [];
  const open = new Map<string, number>();
  let openTotal = 0;
  let maxTotal = 0;
  let maxPerPath = 0;
  const server = createServer((request) => {
    const path = request.url ?? "/";
    received.push(path);
    openTotal += 1;
    open.set(path, (open.get(path) ?? 0) + 1);
    maxTotal = Math.max(maxTotal, openTotal);
    maxPerPath = Math.max(maxPerPath, open.get(path)!);
    request.resume();
    request.socket.once("close", () => {
      openTotal -= 1;
      open.set(path, open.get(path)! - 1);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}/${path}`,
    received,
    maxOpen: () => ({ total: maxTotal, perPath: maxPerPath }),
    // Stops accepting first: a request accepted after the connections were closed would hang until the sender's time-out.
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
