import type { IncomingMessage, ServerResponse } from "node:http";
import { createURL, incomingMessageToRequest } from "@trpc/server/adapters/node-http";

/**
 * The request tRPC's `resolveResponse` is given for a Node request.
 *
 * A GET or HEAD has no body, and of a request `resolveResponse` then reads only the method, the URL (as
 * a string, which it parses itself), the headers and the abort signal. For those it gets this object
 * rather than a Fetch `Request`: building one per call (undici's `Request`, with a signal that follows
 * ours and a second parse of the URL) was ~6 % of a `/trpc/profile.me` (docs/performance.md, "tRPC
 * transport, round two"). The URL and the headers are what tRPC's `incomingMessageToRequest` builds; the
 * signal is made when first read and aborts, as tRPC's does, when the client goes before the answer is
 * written. Requests with a body, and a URL tRPC's adapter would refuse, still go through the adapter.
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
      return (signal ??= clientGoneSignal(req, res));
    },
  };
  return bodiless as unknown as Request;
}

/** As tRPC's `createHeaders`: every header but HTTP/2 pseudo-headers, repeated ones appended. */
function headersOf(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const name in req.headers) {
    if (name.startsWith(":")) continue;
    const value = req.headers[name];
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else if (value != null) headers.append(name, value);
  }
  return headers;
}

/** Aborts when the client goes (the request is aborted, or the response closes before its end). */
function clientGoneSignal(req: IncomingMessage, res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  // Read after the client already went: nothing will fire any more.
  if (res.destroyed && !res.writableEnded) {
    controller.abort();
    return controller.signal;
  }
  const onAbort = (): void => {
    res.off("close", onClose);
    req.off("aborted", onAbort);
    controller.abort();
  };
  const onClose = (): void => {
    if (res.writableEnded) {
      req.off("aborted", onAbort);
      return;
    }
    onAbort();
  };
  res.once("close", onClose);
  req.once("aborted", onAbort);
  return controller.signal;
}
