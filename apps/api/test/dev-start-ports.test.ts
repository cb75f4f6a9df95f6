/**
 * The dev start's simulators take any free port unless a setting names one, and a port that is taken
 * names its setting: a machine where 4010 is busy still starts, and the demo's "pay from the M-Pesa
 * menu" reaches the simulator wherever it listens. Embedded project only; needs `apps/api/dist`.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { target } from "./support/database.js";
import { serviceBuilt, startServiceProcess, type RunningService } from "./support/service-process.js";

const children: RunningService[] = [];
const dataDirs: string[] = [];

/** The dev start's variables (`npm start` sets NODE_ENV and MTEJA_DEV_START), with a data dir of its own. */
function devEnv(extra: Record<string, string> = {}): Record<string, string> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "mteja-dev-ports-"));
  dataDirs.push(dataDir);
  return { NODE_ENV: "development", MTEJA_DEV_START: "1", PORT: "0", DATA_DIR: dataDir, LOG_LEVEL: "info", ...extra };
}

/** Holds a loopback port for the test (or finds it already held by someone else: taken either way). */
function hold(port: number): Promise<Server | undefined> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once("error", () => resolve(undefined));
    server.listen(port, "127.0.0.1", () => resolve(server));
  });
}

function release(server: Server | undefined): Promise<void> {
  return new Promise((resolve) => (server ? server.close(() => resolve()) : resolve()));
}

/** A start on a busy machine (the whole suite beside it) may take most of a minute. */
const startTimeoutMs = 75_000;

async function started(env: Record<string, string>): Promise<RunningService> {
  const running = await startServiceProcess(env, startTimeoutMs);
  children.push(running);
  return running;
}

/** Runs the start to its exit: its exit code and everything it wrote. */
async function failedStart(env: Record<string, string>): Promise<string> {
  const outcome = await startServiceProcess(env, startTimeoutMs).then(
    (running) => {
      children.push(running);
      return "started";
    },
    (error: Error) => error.message,
  );
  return outcome;
}

// A start builds nothing but still loads every module and opens the embedded database: slow on a busy machine.
describe.skipIf(target !== "embedded" || !serviceBuilt)("the dev start's simulator ports", { timeout: 120_000 }, () => {
  let busy: Server | undefined;
  beforeAll(async () => {
    busy = await hold(4010);
  });
  afterAll(async () => {
    for (const running of children) running.child.kill("SIGKILL");
    await release(busy);
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  });

  it("starts with 4010 taken, and the demo's phone pays through the simulator wherever it listens", async () => {
    const running = await started(devEnv());
    expect(running.output()).toMatch(/Daraja simulator started in-process/);
    const order = await fetch(`${running.url}/demo/shop/orders`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ amount: 100, pay_with: "menu" }),
    });
    expect(order.status).toBe(201);
    const { order_number, paybill } = (await order.json()) as { order_number: string; paybill: string };
    const paid = await fetch(`${running.url}/demo/shop/phone/pay`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ paybill, account: order_number, amount: 100 }),
    });
    expect(paid.status).toBe(200);

    // Pay by QR: the shop gets the order's code from Daraja's Dynamic QR, and the simulated phone scans and
    // pays it (the service listens on a port of its own choosing here, so no callback comes back to it).
    const scanned = await fetch(`${running.url}/demo/shop/orders`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ amount: 70, pay_with: "menu" }),
    });
    const { intent_id } = (await scanned.json()) as { intent_id: string };
    const qr = await fetch(`${running.url}/demo/shop/orders/${intent_id}/qr`);
    expect(qr.status).toBe(200);
    const { qr_code } = (await qr.json()) as { qr_code: string };
    const scan = await fetch(`${running.url}/demo/shop/phone/scan`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ qr_code }),
    });
    expect(scan.status).toBe(200);
    expect(await scan.json()).toMatchObject({ status: "completed", trans_id: expect.any(String) });
  });

  it("names SIM_PORT when the port it names is taken, before it opens the database", async () => {
    const taken = await hold(0);
    const port = (taken!.address() as { port: number }).port;
    try {
      const env = devEnv({ SIM_PORT: String(port) });
      const message = await failedStart(env);
      expect(message).toMatch(/exited with 1/);
      expect(message).toContain(`SIM_PORT`);
      expect(message).toContain(String(port));
      expect(existsSync(path.join(env.DATA_DIR!, "pgdata"))).toBe(false);
    } finally {
      await release(taken);
    }
  });

  it("names SMS_SIM_PORT when the port it names is taken, before it opens the database", async () => {
    const taken = await hold(0);
    const port = (taken!.address() as { port: number }).port;
    try {
      const env = devEnv({ SMS_SIM_PORT: String(port) });
      const message = await failedStart(env);
      expect(message).toMatch(/exited with 1/);
      expect(message).toContain(`SMS_SIM_PORT`);
      expect(existsSync(path.join(env.DATA_DIR!, "pgdata"))).toBe(false);
    } finally {
      await release(taken);
    }
  });

  it("names PORT when the service's own port is taken, before it opens the database", async () => {
    const taken = await hold(0);
    const port = (taken!.address() as { port: number }).port;
    try {
      const env = devEnv({ PORT: String(port) });
      const message = await failedStart(env);
      expect(message).toMatch(/exited with 1/);
      expect(message).toMatch(/PORT/);
      expect(message).toContain(String(port));
      // Found before the database is opened: a start that cannot serve creates and migrates nothing.
      expect(existsSync(path.join(env.DATA_DIR!, "pgdata"))).toBe(false);
    } finally {
      await release(taken);
    }
  });
});
