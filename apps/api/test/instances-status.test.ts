/**
 * Several instances on one PostgreSQL behave as one service (docs/deployment.md#status-across-instances):
 * a payment settled by a callback that one instance receives reaches a payments.onStatus subscriber of
 * another instance within 1 s (PostgreSQL LISTEN/NOTIFY), not at that instance's next database re-check.
 * PostgreSQL only: the embedded database serves one process.
 */
import { randomBytes } from "node:crypto";
import { describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import { skipThisTarget, target } from "./support/database.js";
import { postCallback, stkCallbackBody, uniqueReceipt, type DarajaApp } from "./support/daraja.js";
import { subscriptionClient } from "./support/subscriptions.js";
import { waitFor } from "./support/wait.js";

// The test posts each prompt's callback itself, at the moment it chooses.
it.override({ simOptions: { callbacks: false } });

describe.skipIf(skipThisTarget || target !== "postgres")("payment status across two instances", () => {
  let a: DarajaApp;
  let b: DarajaApp;
  it.beforeAll(async ({ sim, launch }) => {
    // Instances of one service share its data key.
    const env = { DATA_ENCRYPTION_KEY: randomBytes(32).toString("hex") };
    a = await launch.momo({ darajaUrl: sim.url, env });
    b = await launch.momo({ darajaUrl: sim.url, env, database: a.database });
  });

  type PromptIds = { checkoutRequestId: string; merchantRequestId: string };

  async function push(token: string): Promise<PromptIds> {
    const pushed = await a.rest.post("/api/momo/stkpush", { phone: "0712345678", amount: 100 }, token);
    expect(pushed.status).toBe(200);
    return pushed.body.data as PromptIds;
  }

  /** Daraja's success callback for the prompt, received by instance A. */
  function settle(ids: PromptIds) {
    const body = stkCallbackBody(ids, 0, { amount: 100, receipt: uniqueReceipt(), phone: "254712345678" });
    return postCallback(a.callbackUrl("stkpush"), body);
  }

  /** Subscribes on `app`; answers when the first update (PENDING) arrived, and the time of each later one. */
  async function follow(app: DarajaApp, token: string, checkoutRequestId: string) {
    const later: { status: string; at: number }[] = [];
    let settled!: () => void;
    const done = new Promise<void>((resolve) => (settled = resolve));
    let opened!: () => void;
    const open = new Promise<void>((resolve) => (opened = resolve));
    const subscription = subscriptionClient(app.url, token).payments.onStatus.subscribe(
      { checkoutRequestId },
      {
        onData: (update) => {
          if (update.status === "PENDING") return opened();
          later.push({ status: update.status, at: performance.now() });
          settled();
        },
        onError: () => settled(),
      },
    );
    await open;
    return { later, done, unsubscribe: () => subscription.unsubscribe() };
  }

  it("a success callback received by instance A reaches a subscriber on instance B within 1 s", async () => {
    const user = await a.customer();
    for (let round = 0; round < 3; round += 1) {
      const ids = await push(user.accessToken);
      // Subscribed on B, the stream has just read the payment: its next database re-check is 2 s away.
      const onB = await follow(b, user.accessToken, ids.checkoutRequestId);
      const sent = performance.now();
      expect((await settle(ids)).status).toBe(200);
      await Promise.race([onB.done, new Promise((resolve) => setTimeout(resolve, 3_000))]);
      onB.unsubscribe();
      expect(onB.later.map((update) => update.status)).toEqual(["SUCCESS"]);
      expect(onB.later[0]!.at - sent, `round ${round}`).toBeLessThan(1_000);
    }
  });

  it("a settlement committed while B's listening connection was cut reaches B once B listens again", async () => {
    const user = await a.customer();
    const ids = await push(user.accessToken);
    const onB = await follow(b, user.accessToken, ids.checkoutRequestId);
    // Both instances' listening connections are cut (as by a database restart); they come back by themselves.
    const listeners = `SELECT pid FROM pg_stat_activity
                        WHERE application_name = 'mteja-status-listener' AND datname = current_database()`;
    const query = (text: string, ...values: unknown[]) => a.deps.db.unscoped("test").$queryRawUnsafe<{ pid: number }[]>(text, ...values);
    const cut = (await query(listeners)).map((row) => Number(row.pid));
    expect(cut).toHaveLength(2);
    for (const pid of cut) await query("SELECT pg_terminate_backend($1)", pid);
    const gone = async () => (await query(listeners)).every((row) => !cut.includes(Number(row.pid)));
    await waitFor(gone, { timeoutMs: 2_000, intervalMs: 5 });
    const sent = performance.now();
    expect((await settle(ids)).status).toBe(200);
    await Promise.race([onB.done, new Promise((resolve) => setTimeout(resolve, 3_000))]);
    onB.unsubscribe();
    expect(onB.later.map((update) => update.status)).toEqual(["SUCCESS"]);
    expect(onB.later[0]!.at - sent).toBeLessThan(1_000);
    await waitFor(async () => (await query(listeners)).length === 2);
  });
});
