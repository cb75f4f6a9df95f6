/**
 * What a crashed instance had claimed is picked up again within 15 s, and a webhook delivery is never
 * sent twice by two live instances (docs/deployment.md#leases-and-crashed-instances). Instance A is the
 * built service as a process: it claims a payment's webhook delivery (the receiver holds the request)
 * and, in its reconciliation sweep, another payment's STK query (the simulator holds it), and is killed
 * with SIGKILL. Two live instances then share the database, with leases shortened by
 * WEBHOOK_LEASE_SECONDS and MOMO_RECONCILE_LEASE_SECONDS; the one that claims the delivery is answered
 * only after longer than a lease, so it must renew its lease to keep the other from sending it too.
 * PostgreSQL only (instances in several processes); needs `apps/api/dist` (the test command builds it).
 */
import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import { adminKey, registerUser, RestClient } from "./support/app.js";
import { createTestDatabase, skipThisTarget, target, type TestDatabase } from "./support/database.js";
import { callbackSecret, postCallback, startDarajaApp, stkCallbackBody, type DarajaApp } from "./support/daraja.js";
import { tenantParameter, tenantToken, uniqueReceipt } from "./support/daraja.js";
import { serviceBuilt, startServiceProcess } from "./support/service-process.js";
import { CONSUMER_KEY, CONSUMER_SECRET, PASSKEY, SHORTCODE } from "./support/simulator.js";
import { waitFor } from "./support/wait.js";

// The test posts the prompt's callback itself.
it.override({ simOptions: { callbacks: false } });

const leaseSeconds = 3;
/** Longer than a lease: only a renewed lease keeps a live instance's delivery from the other. */
const slowAnswerMs = leaseSeconds * 1000 + 2_000;

/** A shop's receiver: holds the first request for good (its sender is killed); answers later ones slowly. */
async function startSlowReceiver() {
  const received: { at: number; eventId: string }[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const event = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { id: string };
      received.push({ at: performance.now(), eventId: event.id });
      if (received.length === 1) return;
      setTimeout(() => response.writeHead(200).end("ok"), slowAnswerMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const skipHere = skipThisTarget || target !== "postgres" || !serviceBuilt;

describe.skipIf(skipHere)("claimed work across an instance crash", () => {
  const children: ChildProcess[] = [];
  const live: DarajaApp[] = [];
  let database: TestDatabase | undefined;
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
    for (const app of live) await app.close();
    await database?.drop();
  });

  const title = "a killed instance's delivery and query are picked up within 15 s; the delivery sent once more";
  it(title, { timeout: 60_000 }, async ({ sim }) => {
    database = await createTestDatabase();
    const receiver = await startSlowReceiver();
    // Instances of one service share its data key (the endpoint's secret is sealed with it).
    const dataKey = randomBytes(32).toString("hex");
    const shared = {
      DATA_ENCRYPTION_KEY: dataKey,
      WEBHOOK_LEASE_SECONDS: String(leaseSeconds),
      MOMO_RECONCILE_LEASE_SECONDS: String(leaseSeconds),
    };
    try {
      const a = await startServiceProcess({
        ...shared,
        HOST: "127.0.0.1",
        PORT: "0",
        NODE_ENV: "development",
        MTEJA_DEV_START: "",
        LOG_LEVEL: "info",
        DATABASE_URL: database.url!,
        ADMIN_API_KEY: adminKey,
        PASSWORD_HASHER: "threads",
        MOMO_SIMULATOR: "off",
        MOMO_BASE_URL: sim.url,
        MOMO_CONSUMER_KEY: CONSUMER_KEY,
        MOMO_CONSUMER_SECRET: CONSUMER_SECRET,
        MOMO_SHORTCODE: SHORTCODE,
        MOMO_PASSKEY: PASSKEY,
        MOMO_CALLBACK_URL: "http://127.0.0.1:9/api/momo/callback/stkpush",
        MOMO_CALLBACK_SECRET: callbackSecret,
        // A's sweep queries a pending payment at once, and waits as long as Daraja takes.
        MOMO_RECONCILE_INTERVAL_MS: "200",
        MOMO_RECONCILE_AFTER_SECONDS: "0",
        MOMO_TIMEOUT_MS: "60000",
      });
      children.push(a.child);

      // Through A: a shop's endpoint, and a payment whose success writes the event A then sends.
      const admin = new RestClient(a.url, "");
      const created = await admin.request("POST", "/api/v1/admin/tenants/default/api-keys", {
        body: { name: "Shop" },
        headers: { authorization: `Bearer ${adminKey}` },
      });
      const key = created.body.data.key as string;
      const endpoint = await admin.request("POST", "/api/v1/webhook-endpoints", {
        body: { url: receiver.url, events: ["payment.succeeded"] },
        token: key,
      });
      expect(endpoint.status).toBe(201);
      const user = await registerUser(new RestClient(a.url));
      const push = async () => {
        const prompt = { phone: "0712345678", amount: 10 };
        const pushed = await new RestClient(a.url).post("/api/momo/stkpush", prompt, user.accessToken);
        expect(pushed.status, JSON.stringify(pushed.body)).toBe(200);
        return pushed;
      };
      const pushed = await push();
      const token = `token=${tenantToken("default")}&tenant=${tenantParameter("default")}`;
      const callbackUrl = `${a.url}/api/momo/callback/stkpush?${token}`;
      const paid = { amount: 10, receipt: uniqueReceipt(), phone: "254712345678" };
      const body = stkCallbackBody(pushed.body.data, 0, paid);
      expect((await postCallback(callbackUrl, body)).status).toBe(200);

      // A sends it; the receiver holds the request. A's sweep queries another payment, held too.
      await waitFor(async () => receiver.received.length === 1);
      // The next STK query (A's sweep, of the second payment: the first is settled) is held for good.
      sim.script("stkquery", () => new Promise(() => undefined));
      const queried = sim.count("stkquery");
      await push();
      await waitFor(async () => sim.count("stkquery") === queried + 1);
      // A is killed before any answer.
      const exited = new Promise((resolve) => a.child.once("exit", resolve));
      a.child.kill("SIGKILL");
      await exited;
      const killedAt = performance.now();

      for (let i = 0; i < 2; i += 1) live.push(await startDarajaApp({ darajaUrl: sim.url, env: shared, database }));
      // The live instances' sweeps, run by hand, as their schedule would.
      const sweeping = (async () => {
        while (sim.count("stkquery") < queried + 2 && performance.now() - killedAt < 15_000) {
          await Promise.all(live.map((app) => app.reconciler.runOnce()));
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
        return performance.now() - killedAt;
      })();
      await waitFor(async () => receiver.received.length >= 2, { timeoutMs: 15_000 });
      const [sentByA, sentAgain] = receiver.received;
      expect(sentAgain!.eventId).toBe(sentByA!.eventId);
      expect(sentAgain!.at - killedAt).toBeLessThan(15_000);
      // The payment A was querying is queried again, by one live instance.
      expect(await sweeping).toBeLessThan(15_000);
      expect(sim.count("stkquery")).toBe(queried + 2);

      // Answered after longer than a lease, recorded once; the other live instance never sent it.
      const events = new RestClient(live[0]!.url, "");
      const attempts = async () => {
        const listed = await events.request("GET", "/api/v1/webhook-events", { token: key });
        return listed.body.data.webhook_events[0].attempts as { status_code: number | null }[];
      };
      await waitFor(async () => (await attempts()).length > 0, { timeoutMs: slowAnswerMs + 5_000 });
      await new Promise((resolve) => setTimeout(resolve, leaseSeconds * 1000 + 1_000));
      expect(receiver.received).toHaveLength(2);
      expect((await attempts()).map((attempt) => attempt.status_code)).toEqual([200]);
    } finally {
      await receiver.close();
    }
  });
});
