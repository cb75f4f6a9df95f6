/**
 * The dev start (`node scripts/run.mjs start` sets MTEJA_DEV_START=1): with no MOMO_BASE_URL the
 * service runs the Daraja simulator in-process on SIM_PORT, wired to its own callback routes with a
 * generated hex secret and a B2C credential from the simulator's key under DATA_DIR.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Services } from "../src/runtime/services.js";
import { registerUser, RestClient } from "./support/app.js";
import { skipThisTarget } from "./support/database.js";
import { startDevService, type DevService } from "./support/dev-start.js";
import { waitFor } from "./support/wait.js";
import { freePort } from "./support/ports.js";

describe.skipIf(skipThisTarget)("dev start with the in-process simulator", () => {
  let dev: DevService | undefined;
  let services: Services;
  let url: string;
  let dataDir: string;
  let simPort: number;

  beforeAll(async () => {
    simPort = await freePort();
    dev = await startDevService({ SIM_PORT: String(simPort) });
    ({ services, url, dataDir } = dev);
  });
  afterAll(() => dev?.close());

  it("serves a prompt end to end through the simulator and pays out with the simulator's key", async () => {
    const settings = services.deps.daraja.settings;
    const stkCallbackUrl = settings.callbackUrls["stkpush"];
    expect(stkCallbackUrl).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+/api/momo/callback/stkpush$`));
    expect(readFileSync(path.join(dataDir, "daraja-sim-public.pem"), "utf8")).toContain("PUBLIC KEY");
    const sim = await fetch(`http://127.0.0.1:${simPort}/sim/requests`);
    expect(sim.status).toBe(200);

    const rest = new RestClient(url);
    const user = await registerUser(rest);
    const pushed = await rest.post("/api/momo/stkpush", { phone: "0712345678", amount: 100 }, user.accessToken);
    expect(pushed.status).toBe(200);
    const payment = await waitFor(
      async () => {
        const row = await services.deps.db.unscoped("test").payment.findUnique({ where: { checkoutRequestId: pushed.body.data.checkoutRequestId } });
        return row?.status === "SUCCESS" ? row : undefined;
      },
      { timeoutMs: 8_000 },
    );
    expect(payment.mpesaReceipt).toBeTruthy();
    // The prompt's CallBackURL carried the default shop's own token (docs/mpesa.md#callback-tokens), and the simulator followed it.
    const seen = (await (await fetch(`http://127.0.0.1:${simPort}/sim/requests`)).json()) as { requests: { path: string; body: any }[] };
    const callBackUrl = seen.requests.find((r) => r.path.endsWith("/stkpush/v1/processrequest"))!.body.CallBackURL as string;
    expect(callBackUrl).toMatch(/\/api\/momo\/callback\/stkpush\?token=[0-9a-f]{64}&tenant=64656661756c74&ref=/);

    await services.deps.db.unscoped("test").user.update({ where: { id: user.id }, data: { role: "admin" } });
    const login = await rest.post("/api/v1/auth/login", { email: user.email, password: user.password });
    const paid = await rest.post("/api/momo/b2c", { phone: "0712345678", amount: 500 }, login.body.data.access_token);
    expect(paid.status).toBe(200);
    const payout = await waitFor(
      async () => {
        const row = await services.deps.db.unscoped("test").payout.findUnique({ where: { originatorConversationId: paid.body.data.originatorConversationId } });
        return row && row.status !== "PENDING" ? row : undefined;
      },
      { timeoutMs: 8_000 },
    );
    // The simulator decrypts the SecurityCredential: a wrong key would have ended in 2001.
    expect(payout).toMatchObject({ status: "SUCCESS", resultCode: "0" });
  });
});
