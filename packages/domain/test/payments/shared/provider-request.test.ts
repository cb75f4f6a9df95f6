import { Prisma } from "@mteja/db";
import { DarajaError, type DarajaOutcome } from "@mteja/daraja";
import { describe, expect, it } from "vitest";
import { DomainError } from "../../../src/shared/errors.js";
import { inFlightPollMs } from "../../../src/payments/shared/in-flight-wait.js";
import { requestOnce, type ProviderRequest } from "../../../src/payments/shared/provider-request.js";
import { fakeClock } from "../../support/fake-ports.js";

interface Row {
  id: string;
  key: string | null;
  body: string;
  createdAt: Date;
  status: "PENDING" | "ACCEPTED" | "FAILED" | "UNKNOWN";
  lastError: string | null;
}

type Answer = { id: string; status: Row["status"] };

function darajaError(outcome: DarajaOutcome): DarajaError {
  return new DarajaError({
    kind: outcome === "refused" ? "provider_error" : "unavailable",
    outcome,
    reason: outcome === "not_sent" ? "network" : outcome === "unknown" ? "timeout" : "invalid_request",
    httpStatus: outcome === "refused" ? 400 : null,
    errorCode: outcome === "refused" ? "400.002.02" : null,
    errorMessage: outcome === "refused" ? "Bad Request - Invalid Amount" : null,
    requestId: null,
  });
}

/** An in-memory kind of request: rows in an array, Daraja a function, every step recorded. */
function fakeRequests(clock = fakeClock()) {
  const rows: Row[] = [];
  const steps: string[] = [];
  let daraja: () => Promise<string> = async () => "ack";
  let refunds = 0;

  function make(key: string | undefined, body: string): ProviderRequest<Row, string, Answer> {
    return {
      idempotencyKey: key,
      findByKey: async (k) => rows.find((row) => row.key === k) ?? null,
      count: async () => {
        steps.push("count");
        return { refund: async () => void refunds++ };
      },
      store: async () => {
        steps.push("store");
        if (key && rows.some((row) => row.key === key)) throw new Prisma.PrismaClientKnownRequestError("unique", { code: "P2002", clientVersion: "test" });
        const row: Row = { id: `row-${rows.length + 1}`, key: key ?? null, body, createdAt: clock.now(), status: "PENDING", lastError: null };
        rows.push(row);
        return { ...row };
      },
      sameRequest: (row) => row.body === body,
      inFlight: (row) => row.status === "PENDING" && row.lastError === null,
      reload: async (row) => ({ ...rows.find((r) => r.id === row.id)! }),
      refusedOrNeverSent: (row) => row.status === "FAILED",
      storedAnswer: (row) => ({ id: row.id, status: row.status }),
      call: async () => {
        steps.push("call");
        return daraja();
      },
      accepted: async (row) => {
        rows.find((r) => r.id === row.id)!.status = "ACCEPTED";
        return { id: row.id, status: "ACCEPTED" };
      },
      markFailed: async (row, lastError) => {
        Object.assign(rows.find((r) => r.id === row.id)!, { status: "FAILED", lastError });
      },
      markUnknown: async (row, lastError) => {
        Object.assign(rows.find((r) => r.id === row.id)!, { status: "UNKNOWN", lastError });
      },
    };
  }

  return {
    clock,
    rows,
    steps,
    refunds: () => refunds,
    darajaAnswers(answer: () => Promise<string>) {
      daraja = answer;
    },
    send: (key: string | undefined, body = "100 to 254700000001") => requestOnce(make(key, body), { clock, inFlightSeconds: 30 }),
  };
}

describe("a provider request made at most once (requestOnce)", () => {
  it("stores the row before calling Daraja and answers the acknowledgement", async () => {
    const requests = fakeRequests();
    expect(await requests.send("k1")).toEqual({ id: "row-1", status: "ACCEPTED" });
    expect(requests.steps).toEqual(["count", "store", "call"]);
  });

  it("replays a stored row for a retry with its key: no count, no second row, no second call", async () => {
    const requests = fakeRequests();
    await requests.send("k1");
    requests.steps.length = 0;
    expect(await requests.send("k1")).toEqual({ id: "row-1", status: "ACCEPTED" });
    expect(requests.steps).toEqual([]);
    expect(requests.rows).toHaveLength(1);
  });

  it("refuses a used key with a different body", async () => {
    const requests = fakeRequests();
    await requests.send("k1");
    await expect(requests.send("k1", "200 to 254700000001")).rejects.toMatchObject({ code: "VALIDATION_ERROR" });
  });

  it("waits while the first request is in flight, then answers what it got", async () => {
    // Each poll of the retry yields to the event loop, so the first request can be answered meanwhile.
    const clock = fakeClock();
    const instantSleep = clock.sleep;
    clock.sleep = async (ms, signal) => {
      await new Promise((resolve) => setImmediate(resolve));
      return instantSleep(ms, signal);
    };
    const requests = fakeRequests(clock);
    let release!: (ack: string) => void;
    requests.darajaAnswers(() => new Promise((resolve) => (release = resolve)));
    const first = requests.send("k1");
    await new Promise((resolve) => setImmediate(resolve));
    expect(requests.steps).toEqual(["count", "store", "call"]);

    const retry = requests.send("k1");
    // The retry polls the row; once the first request is answered it stops.
    await new Promise((resolve) => setImmediate(resolve));
    release("ack");
    await first;
    expect(await retry).toEqual({ id: "row-1", status: "ACCEPTED" });
    expect(requests.clock.sleeps.length).toBeGreaterThan(0);
    expect(requests.clock.sleeps.every((ms) => ms === inFlightPollMs)).toBe(true);
    expect(requests.steps.filter((step) => step === "call")).toHaveLength(1);
  });

  it("never sends again a request whose outcome is unknown: the retry answers the stored row", async () => {
    const requests = fakeRequests();
    requests.darajaAnswers(async () => {
      throw darajaError("unknown");
    });
    expect(await requests.send("k1")).toEqual({ id: "row-1", status: "UNKNOWN" });
    expect(requests.rows[0]?.lastError).toMatch(/^outcome unknown: /);
    expect(await requests.send("k1")).toEqual({ id: "row-1", status: "UNKNOWN" });
    expect(requests.steps.filter((step) => step === "call")).toHaveLength(1);
  });

  it("treats a failure that is no DarajaError as an unknown outcome too", async () => {
    const requests = fakeRequests();
    requests.darajaAnswers(async () => {
      throw new Error("socket hang up");
    });
    expect(await requests.send(undefined)).toEqual({ id: "row-1", status: "UNKNOWN" });
  });

  it("marks a refused request failed, answers 502, and answers the same error to a retry without calling", async () => {
    const requests = fakeRequests();
    requests.darajaAnswers(async () => {
      throw darajaError("refused");
    });
    const first = await requests.send("k1").catch((error: unknown) => error);
    expect(first).toBeInstanceOf(DomainError);
    expect(first).toMatchObject({ code: "PAYMENT_PROVIDER_ERROR" });
    const retry = await requests.send("k1").catch((error: unknown) => error);
    expect(retry).toMatchObject({ code: "PAYMENT_PROVIDER_ERROR", details: (first as DomainError).details });
    expect(requests.steps.filter((step) => step === "call")).toHaveLength(1);
  });

  it("answers 503 for a request that was never sent", async () => {
    const requests = fakeRequests();
    requests.darajaAnswers(async () => {
      throw darajaError("not_sent");
    });
    await expect(requests.send("k1")).rejects.toMatchObject({ code: "PAYMENT_PROVIDER_UNAVAILABLE" });
    await expect(requests.send("k1")).rejects.toMatchObject({ code: "PAYMENT_PROVIDER_UNAVAILABLE" });
    expect(requests.rows[0]?.status).toBe("FAILED");
  });

  it("gives the count back when a request with the same key stored its row first", async () => {
    const requests = fakeRequests();
    await requests.send("k1");
    // The second request missed the first row when it looked, then lost the race to store.
    const lateRow = requests.rows.splice(0, 1)[0]!;
    const send = requests.send("k1");
    requests.rows.push(lateRow);
    expect(await send).toEqual({ id: "row-1", status: "ACCEPTED" });
    expect(requests.refunds()).toBe(1);
  });
});
