// The shop's webhook receiver: checks each delivery's signature as docs/webhooks.md describes it (written
// here from that description, not with the service's own code, so a check that drifted would show) and
// keeps what arrived: every delivery, valid or not, by event id.
import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer } from "node:http";

/**
 * The `Mteja-Signature` header (`t=<unix seconds>,v1=<hex>[,v1=<hex>]`) against the raw body: valid when one
 * v1 is the HMAC-SHA256 of `<t>.<body>` under the secret and t is within `toleranceSeconds` of `nowSeconds`.
 */
export function signatureValid(rawBody, header, secret, nowSeconds = Date.now() / 1000, toleranceSeconds = 300) {
  if (typeof header !== "string") return false;
  const parts = header.split(",").map((part) => part.trim().split("="));
  const t = parts.find(([key]) => key === "t")?.[1];
  const signatures = parts.filter(([key, value]) => key === "v1" && /^[0-9a-f]{64}$/.test(value ?? "")).map(([, value]) => value);
  if (!t || !/^\d+$/.test(t) || Math.abs(nowSeconds - Number(t)) > toleranceSeconds || signatures.length === 0) return false;
  const expected = createHmac("sha256", secret).update(`${t}.`).update(rawBody).digest();
  return signatures.some((hex) => timingSafeEqual(Buffer.from(hex, "hex"), expected));
}

export async function startReceiver() {
  let secret = "";
  /** @type {Map<string, { type: string, paymentId: string | undefined, deliveries: number, firstAt: number }>} */
  const events = new Map();
  let invalid = 0;
  let deliveries = 0;
  const server = createServer((request, response) => {
    const chunks = [];
    request.on("data", (chunk) => chunks.push(chunk));
    request.on("end", () => {
      const raw = Buffer.concat(chunks);
      deliveries += 1;
      if (!signatureValid(raw, request.headers["mteja-signature"], secret)) {
        invalid += 1;
        response.writeHead(400).end("bad signature");
        return;
      }
      const event = JSON.parse(raw.toString("utf8"));
      const seen = events.get(event.id);
      if (seen) seen.deliveries += 1;
      else events.set(event.id, { type: event.type, paymentId: event.data?.payment?.id, deliveries: 1, firstAt: performance.now() });
      response.writeHead(200).end("ok");
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/mteja/webhooks`,
    setSecret: (value) => (secret = value),
    events,
    counts: () => ({ deliveries, invalid }),
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
