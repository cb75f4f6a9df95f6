/**
 * A loopback stand-in of Pwned Passwords' range API (docs/sign-in.md#breached-passwords):
 * `GET /range/<5 hex>` answers the suffixes under the prefix as `SUFFIX:COUNT` lines, CRLF-separated,
 * with padding lines of count 0 when asked (`Add-Padding: true`), as the real API does. It records
 * what it was asked, so a test sees that only the prefix left; `delayMs` makes it slower than the
 * service waits (the check's fail-open).
 */
import { createHash } from "node:crypto";
import Fastify from "fastify";
import { listen } from "./listen.js";

export interface RangeRequest {
  prefix: string;
  padding: string | undefined;
  url: string;
}

export interface PwnedPasswords {
  url: string;
  requests: RangeRequest[];
  /** Breached from now on (seen `count` times). */
  breach(password: string, count?: number): void;
  /** Answers this much later (0: at once). */
  delay(ms: number): void;
  close(): Promise<void>;
}

const sha1 = (text: string) => createHash("sha1").update(text, "utf8").digest("hex").toUpperCase();

export async function startPwnedPasswords(): Promise<PwnedPasswords> {
  const app = Fastify({ logger: false, forceCloseConnections: true });
  const breached = new Map<string, number>();
  const requests: RangeRequest[] = [];
  let delayMs = 0;
  app.get<{ Params: { prefix: string } }>("/range/:prefix", async (request, reply) => {
    const prefix = request.params.prefix.toUpperCase();
    const padding = request.headers["add-padding"] as string | undefined;
    requests.push({ prefix: request.params.prefix, padding, url: request.url });
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    if (!/^[0-9A-F]{5}$/.test(prefix)) return reply.code(400).type("text/plain").send("The hash prefix was not in a valid format");
    const lines = [...breached].filter(([hash]) => hash.startsWith(prefix)).map(([hash, count]) => `${hash.slice(5)}:${count}`);
    if (padding === "true") {
      for (let i = 0; i < 5; i++) lines.push(`${sha1(`padding-${prefix}-${i}`).slice(5)}:0`);
    }
    return reply.type("text/plain").send(lines.join("\r\n"));
  });
  const url = await listen(app);
  return {
    url,
    requests,
    breach: (password, count = 42) => void breached.set(sha1(password), count),
    delay: (ms) => void (delayMs = ms),
    close: () => app.close(),
  };
}
