/**
 * Whether a request came straight from this machine, decided here once for every route that asks.
 *
 * - `isDirectLoopback`: a socket on the loopback interface, with no proxy header. A proxy on the same
 *   machine forwards the network's requests from loopback too, and says so with X-Forwarded-For or
 *   Forwarded, so those requests never count as local. The socket address is used on purpose, never
 *   request.ip (which TRUST_PROXY lets a client choose).
 * - `isLocalRequest`: a direct loopback connection that also names this machine in its `Host`
 *   (`localhost`, `127.0.0.1` or `[::1]`, any port, any case). What the dev-only routes ask
 *   (docs/http.md#dev-only-routes): a web page on a developer's machine can make the browser
 *   connect to 127.0.0.1 by rebinding its own name (DNS rebinding), but the browser then sends the
 *   page's name as `Host`, which is not one of these.
 */
import type { FastifyRequest } from "fastify";

export function isDirectLoopback(request: FastifyRequest): boolean {
  const address = request.socket.remoteAddress ?? "";
  const loopback = address === "::1" || address.startsWith("127.") || address.startsWith("::ffff:127.");
  const proxied = request.headers["x-forwarded-for"] !== undefined || request.headers.forwarded !== undefined;
  return loopback && !proxied;
}

/** A Host naming this machine: exactly one of the three names, then at most a port ("localhost." is another name). */
const localHost = /^(?:localhost|127\.0\.0\.1|\[::1\])(?::\d{1,5})?$/i;

/** True for a `Host` header that names this machine (see above); false when it is absent. */
export function isLocalHost(host: string | undefined): boolean {
  return host !== undefined && localHost.test(host);
}

/** A direct loopback connection naming a local Host: what dev-only routes and the dev admin key answer. */
export function isLocalRequest(request: FastifyRequest): boolean {
  // The raw header, never request.host (which TRUST_PROXY lets X-Forwarded-Host choose).
  return isDirectLoopback(request) && isLocalHost(request.headers.host);
}
