/**
 * Graceful shutdown: new connections are refused at once, a request in flight still gets its answer,
 * the services stop after the HTTP side, and a request that never ends is cut at the deadline.
 */
import { randomBytes } from "node:crypto";
import net from "node:net";
import { describe, expect, it } from "vitest";
import { createServices } from "../src/runtime/services.js";
import { createClosers } from "../src/runtime/closers.js";
import { createShutdown } from "../src/runtime/shutdown.js";
import { buildServer } from "../src/server.js";
import { readSettings } from "../src/settings.js";
import { createTestDatabase, skipDatabaseAgnostic } from "./support/database.js";
import { slowLogin } from "./support/slow-login.js";

const silent = { info() {}, warn() {}, error() {}, debug() {} };

async function startApp() {
  const database = await createTestDatabase();
  const settings = readSettings({ NODE_ENV: "test", LOG_LEVEL: "silent", DATA_ENCRYPTION_KEY: randomBytes(32).toString("hex"), DATA_DIR: "/nonexistent-test-data-dir" });
  const services = await createServices(settings, silent, { db: database.db });
  const app = await buildServer({ settings, deps: services.deps, logger: false });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  const events: string[] = [];
  const stopServices = async () => {
    events.push("services stopping");
    await services.close();
    events.push("services stopped");
  };
  return { app, port, events, stopServices, drop: () => database.drop() };
}

function connects(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

const waitFor = async (condition: () => boolean | Promise<boolean>, ms = 2000) => {
  const until = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > until) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

describe.skipIf(skipDatabaseAgnostic)("graceful shutdown", () => {
  it("refuses new connections, finishes the request in flight, then stops the services, within 10 s", async () => {
    const s = await startApp();
    try {
      const shutdown = createShutdown({ app: s.app, stopServices: s.stopServices, logger: silent });
      let inFlight = 0;
      s.app.server.on("request", () => (inFlight += 1));
      const slow = slowLogin(`http://127.0.0.1:${s.port}`);
      await waitFor(() => inFlight === 1);

      const started = Date.now();
      const done = shutdown("test").then(() => s.events.push("shutdown done"));
      await waitFor(async () => !(await connects(s.port)));
      expect(s.events).toEqual([]);

      await new Promise((resolve) => setTimeout(resolve, 200));
      slow.finish();
      const answer = await slow.answer;
      expect(answer.status).toBe(401);
      expect(JSON.parse(answer.body).error.code).toBe("INVALID_CREDENTIALS");
      expect(answer.headers.connection).toBe("close");

      // Nothing else holds the shutdown: it ends right after the answer, long before the deadline.
      const answered = Date.now();
      await done;
      expect(Date.now() - answered).toBeLessThan(3000);
      expect(s.events).toEqual(["services stopping", "services stopped", "shutdown done"]);
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      await s.drop();
    }
  });

  it("cuts a request that does not finish by the deadline, and still stops the services", async () => {
    const s = await startApp();
    try {
      const shutdown = createShutdown({ app: s.app, stopServices: s.stopServices, logger: silent, timeoutMs: 1500, servicesMarginMs: 500 });
      let inFlight = 0;
      s.app.server.on("request", () => (inFlight += 1));
      const stuck = slowLogin(`http://127.0.0.1:${s.port}`);
      const outcome = stuck.answer.then(
        () => "answered",
        () => "cut",
      );
      await waitFor(() => inFlight === 1);

      const started = Date.now();
      await shutdown("test");
      const elapsed = Date.now() - started;
      expect(elapsed).toBeGreaterThanOrEqual(900);
      expect(elapsed).toBeLessThan(1500 + 1000);
      expect(await outcome).toBe("cut");
      expect(s.events).toEqual(["services stopping", "services stopped"]);
    } finally {
      await s.drop();
    }
  });

  it("is bounded when a service never stops: fails at the deadline naming the part it waited for", async () => {
    const s = await startApp();
    try {
      const closers = createClosers();
      closers.add("a worker that never stops", () => new Promise(() => undefined));
      const shutdown = createShutdown({ app: s.app, stopServices: () => closers.closeAll(), stopping: () => closers.stopping(), logger: silent, timeoutMs: 1000, servicesMarginMs: 500 });
      const started = Date.now();
      await expect(shutdown("test")).rejects.toThrow("shutdown deadline passed while stopping a worker that never stops");
      expect(Date.now() - started).toBeLessThan(2500);
    } finally {
      await s.stopServices();
      await s.drop();
    }
  });

  it("is idempotent: a second signal joins the shutdown under way", async () => {
    const s = await startApp();
    try {
      const shutdown = createShutdown({ app: s.app, stopServices: s.stopServices, logger: silent });
      const first = shutdown("SIGTERM");
      const second = shutdown("SIGINT");
      expect(second).toBe(first);
      await first;
      expect(s.events).toEqual(["services stopping", "services stopped"]);
    } finally {
      await s.drop();
    }
  });
});
