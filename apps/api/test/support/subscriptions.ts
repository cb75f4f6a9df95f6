/**
 * A tRPC client for the payments.onStatus subscription (SSE, httpSubscriptionLink) in Node, with the
 * bearer token in a header.
 */
import { createTRPCClient, httpLink, httpSubscriptionLink, splitLink } from "@trpc/client";
import type { AppRouter } from "@mteja/domain";

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

export function subscriptionClient(url: string, token: string) {
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
