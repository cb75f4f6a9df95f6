/**
 * payments.onStatus: a tRPC 11 subscription over SSE (httpSubscriptionLink), pushing a payment's
 * status changes until it is terminal.
 */
import { createTRPCClient, httpLink, httpSubscriptionLink, splitLink, TRPCClientError } from "@trpc/client";
import type { AppRouter } from "@mteja/domain";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { skipThisTarget } from "./support/database.js";
import { startMomoApp, startSimulator, type MomoApp, type Simulator } from "./support/fake-daraja.js";

type Listener = (event: { data: string; lastEventId: string; type: string }) => void;

/**
 * A minimal EventSource on fetch: Node 20 has none, and browsers' cannot send an Authorization header
 * (first-party clients use a ponyfill that can, e.g. the `eventsource` package with a custom fetch).
 */
class FetchEventSource {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSED = 2;
  readonly CONNECTING = 0;
  readonly OPEN = 1;
  readonly CLOSED = 2;
  readyState = 0;
  readonly withCredentials = false;
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly abort = new AbortController();

  constructor(
    readonly url: string,
    init?: { headers?: Record<string, string> },
  ) {
    void this.run(init?.headers ?? {});
  }

  addEventListener(type: string, listener: Listener) {
    if (!this.listeners.has(type)) this.listeners.set(type, new Set());
    this.listeners.get(type)!.add(listener);
  }

  removeEventListener(type: string, listener: Listener) {
    this.listeners.get(type)?.delete(listener);
  }

  close() {
    this.readyState = 2;
    this.abort.abort();
  }

  private dispatch(type: string, data = "", lastEventId = "") {
    for (const listener of this.listeners.get(type) ?? []) listener({ type, data, lastEventId });
  }

  private async run(headers: Record<string, string>) {
    try {
      const response = await fetch(this.url, { headers: { accept: "text/event-stream", ...headers }, signal: this.abort.signal });
      if (!response.body || !response.headers.get("content-type")?.includes("text/event-stream")) throw new Error(`not an event stream: ${response.status}`);
      this.readyState = 1;
      this.dispatch("open");
      const decoder = new TextDecoder();
      let buffer = "";
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let type = "message";
          let id = "";
          const data: string[] = [];
          for (const line of block.split("\n")) {
            if (line.startsWith("event:")) type = line.slice(6).trim();
            else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
            else if (line.startsWith("id:")) id = line.slice(3).trim();
          }
          if (data.length || type !== "message") this.dispatch(type, data.join("\n"), id);
        }
      }
      this.readyState = 2;
      this.dispatch("error");
    } catch {
      if (this.readyState === 2) return;
      this.readyState = 2;
      this.dispatch("error");
    }
  }
}

function subscriptionClient(url: string, token: string) {
  const headers = { authorization: `Bearer ${token}`, "x-tenant-id": "default" };
  return createTRPCClient<AppRouter>({
    links: [
      splitLink({
        condition: (op) => op.type === "subscription",
        true: httpSubscriptionLink({ url: `${url}/trpc`, EventSource: FetchEventSource as never, eventSourceOptions: () => ({ headers }) as never }),
        false: httpLink({ url: `${url}/trpc`, headers }),
      }),
    ],
  });
}

describe.skipIf(skipThisTarget)("payments.onStatus subscription", () => {
  let sim: Simulator;
  let t: MomoApp;
  beforeAll(async () => {
    sim = await startSimulator({ callbackDelayMs: 400 });
    t = await startMomoApp({ darajaUrl: sim.url });
  });
  afterAll(async () => {
    await t?.close();
    await sim?.close();
  });

  it("delivers PENDING, then SUCCESS when the callback lands, then ends", async () => {
    const user = await t.customer();
    const client = subscriptionClient(t.url, user.accessToken);
    const pushed = await client.payments.stkPush.mutate({ phone: "0712000111", amount: 50 });
    const seen: string[] = [];
    const done = new Promise<void>((resolve, reject) => {
      const subscription = client.payments.onStatus.subscribe(
        { checkoutRequestId: pushed.data.checkoutRequestId! },
        {
          onData: (update) => {
            seen.push(update.status);
            if (update.status !== "PENDING") {
              expect(update).toMatchObject({ checkoutRequestId: pushed.data.checkoutRequestId, resultCode: "0" });
              subscription.unsubscribe();
              resolve();
            }
          },
          onError: reject,
        },
      );
    });
    await done;
    expect(seen).toEqual(["PENDING", "SUCCESS"]);
  });

  it("answers NOT_FOUND for another customer's payment", async () => {
    const owner = await t.customer();
    const other = await t.customer();
    const pushed = await subscriptionClient(t.url, owner.accessToken).payments.stkPush.mutate({ phone: "0712000112", amount: 50 });
    const error = await new Promise<unknown>((resolve) => {
      subscriptionClient(t.url, other.accessToken).payments.onStatus.subscribe(
        { checkoutRequestId: pushed.data.checkoutRequestId! },
        { onData: () => resolve(new Error("unexpected data")), onError: resolve },
      );
    });
    expect(error).toBeInstanceOf(TRPCClientError);
    expect((error as TRPCClientError<any>).shape.error).toEqual({ code: "NOT_FOUND" });
    expect((error as TRPCClientError<any>).data.httpStatus).toBe(404);
  });

  it("sees a change committed by another instance (no in-process event) through its database re-check", async () => {
    const user = await t.customer();
    // The prompt is never answered: only the direct database change can settle it.
    await sim.nextOutcome("no_callback");
    const client = subscriptionClient(t.url, user.accessToken);
    const pushed = await client.payments.stkPush.mutate({ phone: "0712000113", amount: 50 });
    const seen: string[] = [];
    const started = Date.now();
    await new Promise<void>((resolve, reject) => {
      const subscription = client.payments.onStatus.subscribe(
        { checkoutRequestId: pushed.data.checkoutRequestId! },
        {
          onData: (update) => {
            seen.push(update.status);
            if (update.status === "PENDING") {
              // What another instance's settlement looks like from here: a committed row, no event.
              t.deps.db.prisma.payment.update({ where: { checkoutRequestId: pushed.data.checkoutRequestId! }, data: { status: "CANCELLED", resultCode: "1032" } }).catch(reject);
            } else {
              subscription.unsubscribe();
              resolve();
            }
          },
          onError: reject,
        },
      );
    });
    expect(seen).toEqual(["PENDING", "CANCELLED"]);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("needs an access token", async () => {
    const error = await new Promise<unknown>((resolve) => {
      subscriptionClient(t.url, "not-a-token").payments.onStatus.subscribe({ checkoutRequestId: "ws_CO_x" }, { onData: () => resolve(new Error("unexpected data")), onError: resolve });
    });
    expect((error as TRPCClientError<any>).shape.error.code).toBe("INVALID_TOKEN");
  });
});
