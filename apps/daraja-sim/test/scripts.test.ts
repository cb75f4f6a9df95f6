import { afterEach, describe, expect, it } from "vitest";
import { createSimScripts, SANDBOX_PASSKEY, SANDBOX_SHORTCODE } from "../src/index.js";
import { stkPassword } from "@mteja/daraja";
import { raw, rawToken, startSimulator, type RunningSimulator } from "./harness.js";

const timestamp = "20261125120000";
const push = {
  BusinessShortCode: SANDBOX_SHORTCODE,
  Password: stkPassword(SANDBOX_SHORTCODE, SANDBOX_PASSKEY, timestamp),
  Timestamp: timestamp,
  TransactionType: "CustomerPayBillOnline",
  Amount: 10,
  PartyA: "254712345678",
  PartyB: SANDBOX_SHORTCODE,
  PhoneNumber: "254712345678",
  CallBackURL: "http://127.0.0.1:9/callback",
  AccountReference: "ORDER1",
  TransactionDesc: "Order 1",
};

describe("scripted answers", () => {
  let sim: RunningSimulator | undefined;
  afterEach(() => sim?.close());

  async function started() {
    const scripts = createSimScripts();
    sim = await startSimulator({ scripts, callbackDelayMs: 60_000 });
    const token = await rawToken(sim.url);
    const post = (body: unknown, auth = `Bearer ${token}`) =>
      raw(`${sim!.url}/mpesa/stkpush/v1/processrequest`, { headers: { Authorization: auth, "Content-Type": "application/json" }, body: JSON.stringify(body) });
    return { scripts, post };
  }

  it("answers the next accepted request with the script's answer, after the script ran; the one after is the simulator's own", async () => {
    const { scripts, post } = await started();
    let seen: { body: unknown; own: unknown } | undefined;
    scripts.next("stkpush", (request, own) => {
      seen = { body: request.body, own: own.body };
      return { status: 502, headers: { "content-type": "text/html" }, body: "<html>502 Bad Gateway</html>" };
    });
    const gateway = await post(push);
    expect(gateway).toMatchObject({ status: 502, text: "<html>502 Bad Gateway</html>" });
    expect(seen).toEqual({ body: push, own: expect.objectContaining({ ResponseCode: "0", CheckoutRequestID: expect.any(String) }) });
    expect((await post(push)).json).toMatchObject({ ResponseCode: "0" });
    expect(scripts.received.map((r) => [r.operation, r.status, r.scripted])).toEqual([
      ["oauth", 200, false],
      ["stkpush", 502, true],
      ["stkpush", 200, false],
    ]);
  });

  it("leaves Daraja's refusals of a field or a token as they are, and keeps the script for the next accepted request", async () => {
    const { scripts, post } = await started();
    scripts.next("stkpush", () => ({ status: 500, body: { requestId: "r", errorCode: "500.003.02", errorMessage: "System is busy" } }));
    expect((await post({ ...push, PhoneNumber: "12" })).json).toMatchObject({ errorCode: "400.002.02", errorMessage: "Bad Request - Invalid PhoneNumber" });
    expect((await post(push, "Bearer nope")).status).toBe(404);
    expect(await post(push)).toMatchObject({ status: 500, json: { errorCode: "500.003.02" } });
  });

  it("answers late when the script waits, and consults a standing script on every request", async () => {
    const { scripts, post } = await started();
    scripts.always("stkpush", async () => {
      await new Promise((resolve) => setTimeout(resolve, 150));
    });
    const before = Date.now();
    expect((await post(push)).json).toMatchObject({ ResponseCode: "0" });
    expect(Date.now() - before).toBeGreaterThanOrEqual(140);
  });
});
