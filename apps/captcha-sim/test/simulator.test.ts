/** The CAPTCHA stand-in speaks the providers' siteverify: form or JSON in, `{ success, "error-codes" }` out, each token once. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildCaptchaSimulator, type CaptchaSimulator } from "../src/index.js";

describe("CAPTCHA stand-in", () => {
  let sim: CaptchaSimulator;
  let url: string;
  beforeAll(async () => {
    sim = buildCaptchaSimulator({ secret: "s3cret" });
    url = await sim.listen({ host: "127.0.0.1", port: 0 });
  });
  afterAll(() => sim.close());

  const verify = async (path: string, form: Record<string, string>) => {
    const response = await fetch(url + path, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(form).toString() });
    return (await response.json()) as { success: boolean; "error-codes": string[] };
  };

  it("passes an issued token once; Turnstile calls a reuse timeout-or-duplicate, hCaptcha already-seen-response", async () => {
    const token = sim.issueToken();
    expect(await verify("/turnstile/v0/siteverify", { secret: "s3cret", response: token, remoteip: "203.0.113.5" })).toMatchObject({ success: true, "error-codes": [] });
    expect(await verify("/turnstile/v0/siteverify", { secret: "s3cret", response: token })).toEqual({ success: false, "error-codes": ["timeout-or-duplicate"] });
    const other = sim.issueToken();
    expect((await verify("/siteverify", { secret: "s3cret", response: other })).success).toBe(true);
    expect(await verify("/siteverify", { secret: "s3cret", response: other })).toEqual({ success: false, "error-codes": ["already-seen-response"] });
    expect(sim.calls[0]).toEqual({ provider: "turnstile", response: token, remoteip: "203.0.113.5", success: true });
  });

  it("refuses a wrong or missing secret and a token it never issued", async () => {
    expect(await verify("/turnstile/v0/siteverify", { secret: "wrong", response: sim.issueToken() })).toEqual({ success: false, "error-codes": ["invalid-input-secret"] });
    expect(await verify("/turnstile/v0/siteverify", { response: "made-up" })).toEqual({ success: false, "error-codes": ["missing-input-secret", "invalid-input-response"] });
  });
});
