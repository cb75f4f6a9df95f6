/**
 * The webhook outbox survives a kill -9 (docs/webhooks.md#how-delivery-works): the built service runs
 * as a real process (the dev start, with the in-process Daraja simulator), a payment succeeds, and the
 * process is killed while its event is still owed to the receiver; after a restart the event arrives.
 * Embedded project only; needs `apps/api/dist` (the test command builds it).
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { verifyWebhook } from "@mteja/webhooks";
import { afterAll, describe, expect, it } from "vitest";
import { registerUser, RestClient } from "./support/app.js";
import { target } from "./support/database.js";
import { waitFor } from "./support/wait.js";
import { freePort } from "./support/ports.js";
import { serviceBuilt as built, startServiceProcess } from "./support/service-process.js";
import { startReceiver } from "./support/webhook-receiver.js";

const adminKey = "process-admin-key-0123456789";

function start(env: Record<string, string>) {
  return startServiceProcess({ HOST: "127.0.0.1", DATABASE_URL: "", NODE_ENV: "development", MTEJA_DEV_START: "1", LOG_LEVEL: "info", ADMIN_API_KEY: adminKey, ...env });
}

describe.skipIf(target !== "embedded" || !built)("webhook delivery across a kill -9", () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), "mteja-webhooks-process-"));
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("delivers a payment's event after the process was killed before the receiver acknowledged it", async () => {
    const hooks = await startReceiver((n) => ({ status: n === 1 ? 500 : 200 }));
    const env = { PORT: String(await freePort()), SIM_PORT: String(await freePort()), DATA_DIR: dataDir, MOMO_RECONCILE_INTERVAL_MS: "0", WEBHOOK_RETRY_SCHEDULE: "3,3,3" };
    try {
      const first = await start(env);
      children.push(first.child);
      const admin = new RestClient(first.url, "");
      const key = (await admin.request("POST", "/api/v1/admin/tenants/default/api-keys", { body: { name: "Shop" }, headers: { authorization: `Bearer ${adminKey}` } })).body.data.key as string;
      const endpoint = await admin.request("POST", "/api/v1/webhook-endpoints", { body: { url: hooks.url, events: ["payment.succeeded"] }, token: key });
      expect(endpoint.status).toBe(201);
      const user = await registerUser(new RestClient(first.url));
      const pushed = await new RestClient(first.url).request("POST", "/api/momo/stkpush", { body: { phone: "0712345678", amount: 1 }, token: user.accessToken });
      expect(pushed.status, JSON.stringify(pushed.body)).toBe(200);

      // The first attempt is refused (500) and recorded; the retry is 3 s away: kill -9 now.
      await hooks.waitFor(() => true);
      await waitFor(async () => {
        const events = await admin.request("GET", "/api/v1/webhook-events", { token: key });
        return events.body.data.webhook_events[0]?.attempts.length === 1;
      });
      const killed = new Promise((resolve) => first.child.once("exit", resolve));
      first.child.kill("SIGKILL");
      await killed;
      expect(hooks.received).toHaveLength(1);

      const again = await start(env);
      children.push(again.child);
      const [, delivered] = await hooks.waitFor(() => true, 2, 20_000);
      const event = verifyWebhook<{ payment: { status: string; checkout_request_id: string } }>(delivered!.body, delivered!.headers["mteja-signature"], endpoint.body.data.secret);
      expect(event.type).toBe("payment.succeeded");
      expect(event.data.payment).toMatchObject({ status: "SUCCESS", checkout_request_id: pushed.body.data.checkoutRequestId });
      expect(event.id).toBe(hooks.received[0]!.event.id);
      again.child.kill("SIGTERM");
    } finally {
      await hooks.close();
    }
    // Two starts of the built service: 19 s alone, past 30 s beside the whole suite on a slow machine.
  }, 90_000);
});
