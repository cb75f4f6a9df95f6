/**
 * Whether a request came straight from this machine: a socket on the loopback interface, with no
 * proxy header. A proxy on the same machine forwards the network's requests from loopback too, and
 * says so with X-Forwarded-For or Forwarded, so those requests never count as local.
 * The socket address is used on purpose, never request.ip (which TRUST_PROXY lets a client choose).
 */
import type { FastifyRequest } from "fastify";

export function isDirectLoopback(request: FastifyRequest): boolean {
  const address = request.socket.remoteAddress ?? "";
  const loopback = address === "::1" || address.startsWith("127.") || address.startsWith("::ffff:127.");
  const proxied = request.headers["x-forwarded-for"] !== undefined || request.headers.forwarded !== undefined;
  return loopback && !proxied;
}
