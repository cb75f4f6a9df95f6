/**
 * The headers of a deprecated operation (docs/api-versioning.md): `Deprecation` (RFC 9745: `@` and the
 * Unix time it was deprecated), `Sunset` (RFC 8594: the HTTP date after which it may stop answering),
 * and a `Link` to the reference, where the operation is marked deprecated with its replacement.
 */
import type { Deprecation } from "@mteja/domain";

export function deprecationHeaders(deprecation: Deprecation): Record<string, string> {
  return {
    Deprecation: `@${Math.floor(Date.parse(`${deprecation.since}T00:00:00Z`) / 1000)}`,
    Sunset: new Date(`${deprecation.sunset}T00:00:00Z`).toUTCString(),
    Link: '</docs>; rel="deprecation"; type="text/html"',
  };
}
