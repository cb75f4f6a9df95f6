/**
 * The dev start (`npm start` sets MTEJA_DEV_START=1): with no SMS_PROVIDER the service runs the SMS
 * simulator in-process on SMS_SIM_PORT, sends texts to it in Africa's Talking's format and receives its
 * delivery reports with a generated secret — phone sign-in works with no account anywhere.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RestClient } from "./support/app.js";
import { skipThisTarget } from "./support/database.js";
import { startDevService, type DevService } from "./support/dev-start.js";
import { freePort } from "./support/ports.js";
import { uniquePhone } from "./support/sms.js";

describe.skipIf(skipThisTarget)("dev start with the in-process SMS simulator", () => {
  let dev: DevService | undefined;
  let url: string;
  let smsSimPort: number;

  beforeAll(async () => {
    smsSimPort = await freePort();
    dev = await startDevService({ MOMO_SIMULATOR: "off", SMS_SIM_PORT: String(smsSimPort) });
    url = dev.url;
  });
  afterAll(() => dev?.close());

  it("texts the code to the simulator, which reports its delivery back; the code signs in", async () => {
    const phone = uniquePhone();
    const client = new RestClient(url);
    expect((await client.post("/api/v1/auth/phone/start", { phone: phone.local })).status).toBe(200);
    const received = async () => {
      const answer = await fetch(`http://127.0.0.1:${smsSimPort}/sim/messages?to=${encodeURIComponent(phone.international)}`);
      return ((await answer.json()) as { messages: { message: string; from: string }[] }).messages;
    };
    await expect.poll(async () => (await received()).length, { timeout: 10_000 }).toBe(1);
    const [text] = await received();
    expect(text!.from).toBe("MTEJA");
    const code = /\b(\d{6})\b/.exec(text!.message)![1]!;
    await expect
      .poll(async () => (await client.get(`/dev/outbox/texts?to=${encodeURIComponent(phone.international)}`)).body.data.texts[0]?.delivery_status, { timeout: 10_000 })
      .toBe("Success");
    const verify = await client.post("/api/v1/auth/phone/verify", { phone: phone.local, code });
    expect(verify.status).toBe(200);
    expect(verify.body.data.access_token).toEqual(expect.any(String));
  });
});
