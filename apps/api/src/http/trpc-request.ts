import type { IncomingMessage, ServerResponse } from "node:http";
import { createURL, incomingMessageToRequest } from "@trpc/server/adapters/node-http";

/**
 * The request tRPC's `resolveResponse` is given for a Node request.
 *
 * A GET or HEAD has no body, and of a request `resolveResponse` then reads only the method, the URL (as
 * a string, which it parses itself), the headers and the abort signal. For those it gets this object
 * rather than a Fetch `Request`: building one per call (undici's `Request`, with a signal that follows
 * ours and a second parse of the URL) costs ~6 % of a `/trpc/profile.me` (docs/performance.md, "GET /me").
 * The URL and the headers are what tRPC's `incomingMessageToRequest` builds; the
 * signal is made when first read and aborts, as tRPC's does, when the client goes before the answer is
 * written. Only subscriptions and jsonl batches read it: a query or mutation answered as one document gets
 * no signal (our @trpc/server patch), as over REST. Requests with a body, and a URL tRPC's adapter would
 * refuse, still go through the adapter.
 */
export function trpcRequestOf(req: IncomingMessage & { body?: unknown }, res: ServerResponse): Request {
  if (req.method !== "GET" && req.method !== "HEAD") return incomingMessageToRequest(req, res, { maxBodySize: null });
  let url: string;
  try {
    url = createURL(req).href;
  } catch {
    return incomingMessageToRequest(req, res, { maxBodySize: null });
  }
  let signal: AbortSignal | undefined;
  const bodiless = {
    method: req.method,
    url,
    headers: headersOf(req),
    get signal(): AbortSignal {
      return (signal ??= clientGoneSignal(res));
    },
  };
  return bodiless as unknown as Request;
}

/**
 * The request's headers as tRPC reads them (`get`, `has`), read straight from Node's: the same values
 * its `createHeaders` would give (Node has lower-cased the names and joined repeated ones with ", ",
 * as `Headers` does), without copying every header into an undici `Headers` per call.
 */
class NodeHeaders {
  constructor(private readonly headers: IncomingMessage["headers"]) {}

  get(name: string): string | null {
    const value = this.headers[name.toLowerCase()];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(", ") : value;
  }

  has(name: string): boolean {
    return this.headers[name.toLowerCase()] !== undefined;
  }

  /** In name order, as `Headers` iterates (not on any hot path: tRPC only gets and tests). */
  *entries(): IterableIterator<[string, string]> {
    for (const name of Object.keys(this.headers).sort()) {
      if (name.startsWith(":")) continue;
      const value = this.get(name);
      if (value !== null) yield [name, value];
    }
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }

  forEach(callback: (value: string, name: string) => void): void {
    for (const [name, value] of this.entries()) callback(value, name);
  }
}

function headersOf(req: IncomingMessage): Headers {
  return new NodeHeaders(req.headers) as unknown as Headers;
}

/** Aborts when the client goes (the request is aborted, or the response closes before its end). */
function clientGoneSignal(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  // Read after the client already went: nothing will fire any more.
  if (res.destroyed && !res.writableEnded) {
    controller.abort();
    return controller.signal;
  }
  // The response closes once, at its end or when the client goes (an aborted request closes it too):
  // one listener, never removed, on an object that lives as long as the request.
  res.once("close", () => {
    if (!res.writableEnded) controller.abort();
  });
  return controller.signal;
}
