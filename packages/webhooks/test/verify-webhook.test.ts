import { webcrypto } from "node:crypto";
import { describe, expect, it } from "vitest";
import { signatureHeader, verifyWebhook, WebhookVerificationError } from "../src/index.js";

const secret = "whsec_test_secret_one";
const otherSecret = "whsec_test_secret_two";
const body = JSON.stringify({ id: "evt_1", type: "payment.succeeded", created_at: "2026-11-25T09:00:00.000Z", tenant_id: "default", data: { payment: { id: "p1" } } });
const t = 1_795_000_000;
const at = (seconds: number) => () => seconds * 1000;

/** The same HMAC computed by WebCrypto, an implementation independent of the one under test. */
async function webCryptoHmac(key: string, message: string): Promise<string> {
  const imported = await webcrypto.subtle.importKey("raw", new TextEncoder().encode(key), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = await webcrypto.subtle.sign("HMAC", imported, new TextEncoder().encode(message));
  return Buffer.from(mac).toString("hex");
}

function failure(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookVerificationError);
    return (error as WebhookVerificationError).reason;
  }
}

describe("Mteja-Signature", () => {
  it("is t=<seconds>,v1=<hex HMAC-SHA256(secret, '<t>.<raw body>')>", async () => {
    expect(signatureHeader([secret], t, body)).toBe(`t=${t},v1=${await webCryptoHmac(secret, `${t}.${body}`)}`);
  });

  it("carries one v1 per secret while a secret is rotated, the new one first", async () => {
    const header = signatureHeader([otherSecret, secret], t, body);
    expect(header.split(",")).toEqual([`t=${t}`, `v1=${await webCryptoHmac(otherSecret, `${t}.${body}`)}`, `v1=${await webCryptoHmac(secret, `${t}.${body}`)}`]);
  });
});

describe("verifyWebhook", () => {
  it("answers the event of a genuine delivery, from a string or from the raw bytes", () => {
    const header = signatureHeader([secret], t, body);
    expect(verifyWebhook(body, header, secret, { now: at(t) }).type).toBe("payment.succeeded");
    expect(verifyWebhook(Buffer.from(body), [header], secret, { now: at(t + 299) }).id).toBe("evt_1");
  });

  it("accepts a delivery signed during a rotation with either secret", () => {
    const header = signatureHeader([otherSecret, secret], t, body);
    expect(verifyWebhook(body, header, secret, { now: at(t) }).id).toBe("evt_1");
    expect(verifyWebhook(body, header, otherSecret, { now: at(t) }).id).toBe("evt_1");
  });

  it("refuses a changed body, a wrong secret and a re-serialised body", () => {
    const header = signatureHeader([secret], t, body);
    expect(failure(() => verifyWebhook(body.replace("p1", "p2"), header, secret, { now: at(t) }))).toBe("signature_mismatch");
    expect(failure(() => verifyWebhook(body, header, otherSecret, { now: at(t) }))).toBe("signature_mismatch");
    expect(failure(() => verifyWebhook(JSON.stringify(JSON.parse(body), null, 2), header, secret, { now: at(t) }))).toBe("signature_mismatch");
  });

  it("refuses a timestamp outside the tolerance either way, and a signature moved to another timestamp", () => {
    const header = signatureHeader([secret], t, body);
    expect(failure(() => verifyWebhook(body, header, secret, { now: at(t + 301) }))).toBe("timestamp_out_of_tolerance");
    expect(failure(() => verifyWebhook(body, header, secret, { now: at(t - 301) }))).toBe("timestamp_out_of_tolerance");
    expect(verifyWebhook(body, header, secret, { now: at(t + 3600), toleranceSeconds: 3600 }).id).toBe("evt_1");
    const moved = header.replace(`t=${t}`, `t=${t + 1}`);
    expect(failure(() => verifyWebhook(body, moved, secret, { now: at(t) }))).toBe("signature_mismatch");
  });

  it("refuses a missing or malformed header", () => {
    expect(failure(() => verifyWebhook(body, undefined, secret))).toBe("missing_header");
    expect(failure(() => verifyWebhook(body, "", secret))).toBe("missing_header");
    expect(failure(() => verifyWebhook(body, "v1=abc", secret, { now: at(t) }))).toBe("malformed_header");
    expect(failure(() => verifyWebhook(body, `t=${t}`, secret, { now: at(t) }))).toBe("malformed_header");
    expect(failure(() => verifyWebhook(body, `t=${t},v1=${"0".repeat(63)}`, secret, { now: at(t) }))).toBe("malformed_header");
  });

  it("refuses a signed body that is not JSON", () => {
    const raw = "not json";
    expect(failure(() => verifyWebhook(raw, signatureHeader([secret], t, raw), secret, { now: at(t) }))).toBe("malformed_body");
  });
});
