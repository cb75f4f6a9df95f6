// Between the Daraja simulator and the balancer, as a faulty network would be: every callback Daraja sends
// is delivered twice, each copy after its own random delay (so copies of different callbacks interleave in
// random order), and a copy that is not answered 200 (the instance was killed, the database was away: 503)
// is sent again until it is, as a relay with retries would. The simulator calls it over https (production
// refuses plain-http callback URLs), with a self-signed certificate it is told to trust.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:https";
import path from "node:path";
import { promisify } from "node:util";
import { sleep } from "./children.mjs";

/** A self-signed certificate for 127.0.0.1 (openssl), valid a day: { certPath, keyPath }. */
export async function selfSignedCertificate(dir) {
  const certPath = path.join(dir, "relay-cert.pem");
  const keyPath = path.join(dir, "relay-key.pem");
  await promisify(execFile)("openssl", [
    "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", keyPath, "-out", certPath,
  ]);
  return { certPath, keyPath };
}

/** The CheckoutRequestID an STK callback body names, if any. */
export function checkoutIdOf(body) {
  try {
    return JSON.parse(body)?.Body?.stkCallback?.CheckoutRequestID;
  } catch {
    return undefined;
  }
}

/**
 * `target`: the balancer's base URL. `beforeDelivery(checkoutId)`: awaited before the first copy is sent (the
 * storm opens its status streams first). `phaseOf()`: the run's phase now, to count answers per phase.
 */
export async function startRelay({ certPath, keyPath, target, maxDelayMs = 300, giveUpMs = 120_000, beforeDelivery, phaseOf }) {
  /** @type {Map<string, { receivedAt: number, copies: Array<{ sentAt?: number, okSentAt?: number, okAt?: number, tries: number }> }>} */
  const callbacks = new Map();
  const answers = new Map();
  const count = (startPhase, status) => {
    // A copy sent just before a fault and caught by it counts under that fault.
    const phase = startPhase === "steady" ? phaseOf() : startPhase;
    const key = `${phase} ${status}`;
    answers.set(key, (answers.get(key) ?? 0) + 1);
  };
  let pending = 0;
  let gaveUp = 0;

  async function deliver(url, body, copy) {
    const deadline = performance.now() + giveUpMs;
    while (performance.now() < deadline) {
      copy.tries += 1;
      const sentAt = performance.now();
      const phase = phaseOf();
      copy.sentAt ??= sentAt;
      let status;
      let retryAfter = 0;
      try {
        const response = await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body,
          signal: AbortSignal.timeout(15_000),
        });
        await response.arrayBuffer();
        status = String(response.status);
        retryAfter = Number(response.headers.get("retry-after") ?? 0);
      } catch (error) {
        status = error?.name === "TimeoutError" ? "timeout" : "network error";
      }
      count(phase, status);
      if (status === "200") {
        copy.okSentAt = sentAt;
        copy.okAt = performance.now();
        return;
      }
      await sleep(Math.min(1_000, retryAfter ? retryAfter * 1000 : 250));
    }
    gaveUp += 1;
  }

  const server = createServer({ cert: readFileSync(certPath), key: readFileSync(keyPath) }, (request, response) => {
    const chunks = [];
    request.on("data", (chunk) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      // Daraja only needs to hear that it arrived.
      response.writeHead(200, { "content-type": "application/json" }).end('{"ResultCode":0,"ResultDesc":"Accepted"}');
      const checkoutId = checkoutIdOf(body) ?? `unknown-${callbacks.size}`;
      const record = { receivedAt: performance.now(), copies: [{ tries: 0 }, { tries: 0 }] };
      callbacks.set(checkoutId, record);
      const url = target + request.url;
      pending += 1;
      void (async () => {
        await beforeDelivery?.(checkoutId);
        await Promise.all(record.copies.map(async (copy) => {
          await sleep(Math.random() * maxDelayMs);
          await deliver(url, body, copy);
        }));
        pending -= 1;
      })();
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `https://127.0.0.1:${server.address().port}`,
    callbacks,
    answers,
    stats: () => ({ pending, gaveUp }),
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
