import { describe, expect, it } from "vitest";
import {
  createOutboxWorker,
  describeError,
  MailDeliveryError,
  newOutboxMail,
  type MailTransport,
  type OutboxMail,
} from "../src/index.js";
import { captureLogger } from "./support/capture-logger.js";
import { noJitter } from "./support/no-jitter.js";
import { MemoryOutboxStore } from "./support/memory-outbox-store.js";

const token = "ab".repeat(32);

function clock(start = "2026-03-01T09:00:00Z") {
  let current = new Date(start);
  return {
    now: () => current,
    advance(ms: number) {
      current = new Date(current.getTime() + ms);
    },
  };
}

function queue(store: MemoryOutboxStore, now: Date, count = 1) {
  return Array.from({ length: count }, () =>
    store.insert(
      newOutboxMail(
        "resetPassword",
        { userName: "Amina", link: `https://duka.example/reset-password?token=${token}`, validMinutes: 30 },
        { tenantId: "duka", tenantName: "Duka", to: "amina@example.com" },
      ),
      now,
    ),
  );
}

/** A transport that records sends and behaves as `behaviour` says. */
function fakeTransport(behaviour: (mail: OutboxMail, signal: AbortSignal | undefined) => Promise<void>) {
  const sent: OutboxMail[] = [];
  const transport: MailTransport & { sent: OutboxMail[] } = {
    sent,
    async send(mail, opts) {
      sent.push(mail);
      await behaviour(mail, opts?.signal);
    },
    async close() {},
  };
  return transport;
}

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe("outbox worker", () => {
  it("backs off exponentially up to the cap, keeps retrying there, and raises the log level", async () => {
    const time = clock();
    const store = new MemoryOutboxStore();
    const [row] = queue(store, time.now());
    const logger = captureLogger();
    const transport = fakeTransport(async () => {
      throw new MailDeliveryError("ESOCKET: connect ECONNREFUSED 127.0.0.1:2525", { serverUnavailable: true });
    });
    const worker = createOutboxWorker({ store, transport, logger, now: time.now, random: noJitter });

    const delays: number[] = [];
    for (let attempt = 1; attempt <= 13; attempt++) {
      expect(await worker.runOnce()).toEqual({ sent: 0, failed: 1 });
      expect(row!.attempts).toBe(attempt);
      const delay = row!.nextAttemptAt.getTime() - time.now().getTime();
      delays.push(delay);
      time.advance(delay - 1);
      expect(await worker.runOnce()).toEqual({ sent: 0, failed: 0 });
      time.advance(1);
    }
    expect(delays).toEqual([
      2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 128_000, 256_000, 512_000, 900_000, 900_000, 900_000, 900_000,
    ]);
    const levels = logger.entries.map((entry) => entry.level);
    expect(levels).toEqual([...Array(9).fill("warn"), ...Array(4).fill("error")]);
    expect(logger.entries[12]?.fields).toMatchObject({ mailId: row!.id, attempts: 13, error: expect.stringContaining("ECONNREFUSED") });
    expect(JSON.stringify(logger.entries)).not.toContain(token);
    expect(row!.sentAt).toBeUndefined();
  });

  it("takes up to a quarter off each delay, drawn from the random source it was given", async () => {
    const time = clock();
    const store = new MemoryOutboxStore();
    const [row] = queue(store, time.now());
    const transport = fakeTransport(async () => {
      throw new MailDeliveryError("ESOCKET: connect ECONNREFUSED 127.0.0.1:2525", { serverUnavailable: true });
    });
    const asked: number[] = [];
    const mostOff = { int: (max: number) => (asked.push(max), max - 1) };
    const worker = createOutboxWorker({ store, transport, logger: captureLogger(), now: time.now, random: mostOff });
    await worker.runOnce();
    expect(row!.nextAttemptAt.getTime() - time.now().getTime()).toBe(1_500);
    expect(asked).toEqual([501]);
  });

  it("survives any transport failure, even a non-Error or a synchronous throw", async () => {
    const time = clock();
    const store = new MemoryOutboxStore();
    queue(store, time.now(), 2);
    let calls = 0;
    const transport: MailTransport = {
      send(mail) {
        calls++;
        if (calls === 1) throw new Error(`boom for ${mail.text}`);
        return Promise.reject("weird");
      },
      async close() {},
    };
    const worker = createOutboxWorker({ store, transport, logger: captureLogger(), now: time.now, concurrency: 1, random: noJitter });
    expect(await worker.runOnce()).toEqual({ sent: 0, failed: 2 });
    expect(store.rows.map((row) => row.lastError)).toEqual([expect.stringContaining("[redacted]"), "Unknown error"]);
    expect(store.rows.every((row) => !row.lastError?.includes(token))).toBe(true);
  });

  it("does not try the rest of a batch once the server is unreachable, but backs all of it off", async () => {
    const time = clock();
    const store = new MemoryOutboxStore();
    queue(store, time.now(), 3);
    const transport = fakeTransport(async () => {
      throw new MailDeliveryError("ETIMEDOUT: Connection timeout", { serverUnavailable: true });
    });
    const worker = createOutboxWorker({ store, transport, logger: captureLogger(), now: time.now, concurrency: 1, random: noJitter });
    expect(await worker.runOnce()).toEqual({ sent: 0, failed: 3 });
    expect(transport.sent).toHaveLength(1);
    expect(store.rows.map((row) => row.attempts)).toEqual([1, 1, 1]);
    expect(store.rows[2]?.lastError).toMatch(/^Not tried, server unavailable: ETIMEDOUT/);
  });

  it("keeps trying the rest of a batch after a failure of one mail", async () => {
    const time = clock();
    const store = new MemoryOutboxStore();
    const rows = queue(store, time.now(), 3);
    const transport = fakeTransport(async (mail) => {
      if (mail.id === rows[0]!.id) throw new MailDeliveryError("EENVELOPE 550: Recipient rejected", { serverUnavailable: false });
    });
    const worker = createOutboxWorker({ store, transport, logger: captureLogger(), now: time.now, concurrency: 1, random: noJitter });
    expect(await worker.runOnce()).toEqual({ sent: 2, failed: 1 });
  });

  it("claims in batches and leases what it claimed", async () => {
    const time = clock();
    const store = new MemoryOutboxStore();
    queue(store, time.now(), 5);
    const transport = fakeTransport(async () => {});
    // Batches of 8, of which one tenant's share is 2.
    const worker = createOutboxWorker({ store, transport, logger: captureLogger(), now: time.now, batchSize: 8, random: noJitter });
    expect(await worker.runOnce()).toEqual({ sent: 2, failed: 0 });
    expect(await worker.runOnce()).toEqual({ sent: 2, failed: 0 });
    expect(await worker.runOnce()).toEqual({ sent: 1, failed: 0 });
    expect(transport.sent.map((mail) => mail.id)).toEqual(store.rows.map((row) => row.id));
  });

  it("never sends a mail twice when two workers run at once", async () => {
    const time = clock();
    const store = new MemoryOutboxStore();
    queue(store, time.now(), 10);
    const transport = fakeTransport(() => new Promise((resolve) => setTimeout(resolve, 5)));
    // Batches of 12, of which one tenant's share is 3.
    const options = { store, transport, logger: captureLogger(), now: time.now, batchSize: 12, random: noJitter };
    const first = createOutboxWorker(options);
    const second = createOutboxWorker(options);
    const results = await Promise.all([first.runOnce(), second.runOnce(), first.runOnce(), second.runOnce()]);
    expect(results.reduce((sum, result) => sum + result.sent, 0)).toBe(10);
    expect(new Set(transport.sent.map((mail) => mail.id)).size).toBe(10);
    expect(transport.sent).toHaveLength(10);
  });

  it("claims at most a quarter of a batch from one tenant: another tenant's mail goes out in the first batch", async () => {
    const time = clock();
    const store = new MemoryOutboxStore();
    queue(store, time.now(), 300);
    time.advance(1_000);
    const other = store.insert(
      newOutboxMail("passwordChanged", { userName: "Baraka", when: time.now() }, { tenantId: "soko", tenantName: "Soko", to: "baraka@example.com" }),
      time.now(),
    );
    const transport = fakeTransport(async () => {});
    const worker = createOutboxWorker({ store, transport, logger: captureLogger(), now: time.now, random: noJitter });
    expect(await worker.runOnce()).toEqual({ sent: 6, failed: 0 });
    expect(transport.sent.map((mail) => mail.tenantId).sort()).toEqual(["duka", "duka", "duka", "duka", "duka", "soko"]);
    expect(other.sentAt).toBeDefined();
  });

  it("looks again at once while a tenant's backlog is held back by its share", async () => {
    const store = new MemoryOutboxStore();
    queue(store, new Date(), 12);
    const transport = fakeTransport(async () => {});
    const worker = createOutboxWorker({ store, transport, logger: captureLogger(), intervalMs: 60_000, random: noJitter });
    worker.start();
    await expect.poll(() => transport.sent.length).toBe(12);
    expect(store.calls.claimDue).toBeGreaterThanOrEqual(3);
    await worker.stop();
  });

  it("aborts a send that would outlive its lease and retries it later", async () => {
    const store = new MemoryOutboxStore();
    const [row] = queue(store, new Date());
    const transport = fakeTransport(
      (_mail, signal) =>
        new Promise((_resolve, reject) => {
          signal?.addEventListener("abort", () => reject(new MailDeliveryError("EABORT: aborted", { serverUnavailable: false })));
        }),
    );
    const worker = createOutboxWorker({ store, transport, logger: captureLogger(), leaseMs: 200, random: noJitter });
    const started = Date.now();
    expect(await worker.runOnce()).toEqual({ sent: 0, failed: 1 });
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(row).toMatchObject({ attempts: 1, lastError: "EABORT: aborted" });
  });

  it("logs, and carries on, when the store cannot record a result", async () => {
    const time = clock();
    const store = new MemoryOutboxStore();
    queue(store, time.now(), 1);
    store.markSent = async () => {
      throw new Error("connection terminated");
    };
    const logger = captureLogger();
    const worker = createOutboxWorker({ store, transport: fakeTransport(async () => {}), logger, now: time.now, random: noJitter });
    expect(await worker.runOnce()).toEqual({ sent: 1, failed: 0 });
    expect(logger.entries).toEqual([
      expect.objectContaining({ level: "error", fields: expect.objectContaining({ error: "Error: connection terminated" }) }),
    ]);
  });

  it("stop() waits for the batch in flight", async () => {
    const store = new MemoryOutboxStore();
    const [row] = queue(store, new Date());
    const sendStarted = deferred();
    const releaseSend = deferred();
    const transport = fakeTransport(async () => {
      sendStarted.resolve();
      await releaseSend.promise;
    });
    const worker = createOutboxWorker({ store, transport, logger: captureLogger(), random: noJitter });
    worker.start();
    await sendStarted.promise;

    let stopped = false;
    const stopping = worker.stop().then(() => {
      stopped = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(stopped).toBe(false);

    releaseSend.resolve();
    await stopping;
    expect(row!.sentAt).toBeDefined();
  });

  it("does not run again after stop()", async () => {
    const store = new MemoryOutboxStore();
    const worker = createOutboxWorker({ store, transport: fakeTransport(async () => {}), logger: captureLogger(), intervalMs: 5, random: noJitter });
    worker.start();
    await expect.poll(() => store.calls.claimDue).toBeGreaterThan(0);
    await worker.stop();
    const calls = store.calls.claimDue;
    worker.nudge();
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(store.calls.claimDue).toBe(calls);
  });

  it("nudge() runs soon instead of waiting for the interval, and coalesces", async () => {
    const store = new MemoryOutboxStore();
    const transport = fakeTransport(async () => {});
    const worker = createOutboxWorker({ store, transport, logger: captureLogger(), intervalMs: 60_000, random: noJitter });
    worker.start();
    await expect.poll(() => store.calls.claimDue).toBe(1);

    queue(store, new Date());
    for (let i = 0; i < 5; i++) worker.nudge();
    await expect.poll(() => transport.sent.length).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(store.calls.claimDue).toBe(2);
    await worker.stop();
  });

  it("keeps draining while batches come back full", async () => {
    const store = new MemoryOutboxStore();
    queue(store, new Date(), 7);
    const transport = fakeTransport(async () => {});
    const worker = createOutboxWorker({ store, transport, logger: captureLogger(), intervalMs: 60_000, batchSize: 2, random: noJitter });
    worker.start();
    await expect.poll(() => transport.sent.length).toBe(7);
    await worker.stop();
  });

  it("logs and retries when the outbox cannot be read", async () => {
    const store = new MemoryOutboxStore();
    let failures = 1;
    const realClaim = store.claimDue.bind(store);
    store.claimDue = async (opts) => {
      if (failures-- > 0) throw new Error("database unavailable");
      return realClaim(opts);
    };
    queue(store, new Date());
    const logger = captureLogger();
    const transport = fakeTransport(async () => {});
    const worker = createOutboxWorker({ store, transport, logger, intervalMs: 10, random: noJitter });
    await expect(worker.runOnce()).rejects.toThrow("database unavailable");
    failures = 1;
    worker.start();
    await expect.poll(() => logger.entries.some((entry) => entry.level === "error")).toBe(true);
    worker.nudge();
    await expect.poll(() => transport.sent.length, { timeout: 8_000 }).toBe(1);
    await worker.stop();
  });
});

describe("describeError", () => {
  it("cuts tokens out of error text", () => {
    const error = new Error(`550 rejected https://x.example/reset?token=${token}&email=a and ${"f".repeat(40)}`);
    const description = describeError(error);
    expect(description).not.toContain(token);
    expect(description).toContain("token=[redacted]");
    expect(description).not.toContain("f".repeat(40));
  });
});
