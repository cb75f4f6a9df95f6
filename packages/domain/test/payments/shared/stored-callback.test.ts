/**
 * The apply-once core shared by STK, payouts, reversals and C2B (shared/stored-callback.ts): the
 * stored row's lock is taken last, in the statement that records the outcome, and only while the row is
 * still unhandled — otherwise everything the transaction wrote is rolled back and the result is "skipped".
 */
import { randomUUID } from "node:crypto";
import { payments, type PaymentModel } from "@mteja/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  applyStoredCallback,
  settledRow,
  type CallbackVerdict,
  type OutcomeRecorder,
  type SettlementTx,
} from "../../../src/payments/shared/stored-callback.js";
import { createServiceDeps, defaultTenantId, type ServiceDeps } from "../../support/caller.js";

describe("applyStoredCallback", () => {
  let service: ServiceDeps;
  beforeAll(async () => {
    service = await createServiceDeps();
  });
  afterAll(() => service?.close());

  async function storedCallback(outcome: string): Promise<string> {
    const row = await service.deps.db.unscoped("test").darajaCallback.create({
      data: { kind: "stkpush", rawBody: "{}", receivedAt: service.deps.clock.now(), outcome },
      select: { id: true },
    });
    return row.id;
  }

  /** A decision that writes something first (the tenant's name), as settling a payment would. */
  const writesThen =
    (name: string, verdict: CallbackVerdict<never>) =>
    async (tx: SettlementTx): Promise<CallbackVerdict<never>> => {
      await tx.$executeRaw`UPDATE tenants SET name = ${name} WHERE id = ${defaultTenantId}`;
      return verdict;
    };
  const tenantName = async () => (await service.deps.db.unscoped("test").tenant.findUniqueOrThrow({ where: { id: defaultTenantId } })).name;
  const storedRow = (id: string) => service.deps.db.unscoped("test").darajaCallback.findUniqueOrThrow({ where: { id } });

  it("records the outcome on an unhandled row and commits what the decision wrote", async () => {
    const id = await storedCallback("accepted");
    const { result } = await applyStoredCallback(service.deps, id, {}, writesThen("Applied shop", { recorded: true, outcome: "duplicate", link: {} }));
    expect(result).toBe("duplicate");
    expect(await storedRow(id)).toMatchObject({ outcome: "duplicate", flagReason: null, paymentId: null, payoutId: null });
    expect(await tenantName()).toBe("Applied shop");
  });

  it("rolls back what the decision wrote when another path handled the row first, and answers skipped", async () => {
    const before = await tenantName();
    for (const handled of ["applied", "duplicate", "flagged"]) {
      const id = await storedCallback(handled);
      const { result } = await applyStoredCallback(service.deps, id, {}, writesThen(`Twice ${handled}`, { recorded: true, outcome: "applied", link: {} }));
      expect(result).toBe("skipped");
      expect((await storedRow(id)).outcome).toBe(handled);
    }
    expect(await tenantName()).toBe(before);
  });

  it("skips a row already linked to a payment or payout, and one that no longer exists", async () => {
    const before = await tenantName();
    const linked = await storedCallback("accepted");
    await service.deps.db.unscoped("test").darajaCallback.update({ where: { id: linked }, data: { payoutId: "00000000-0000-4000-8000-000000000001" } });
    const gone = "00000000-0000-4000-8000-0000000000ff";
    for (const id of [linked, gone]) {
      const { result } = await applyStoredCallback(service.deps, id, {}, writesThen("Linked twice", { recorded: true, outcome: "applied", link: {} }));
      expect(result).toBe("skipped");
    }
    expect(await tenantName()).toBe(before);
  });

  it("waits for a busy database rather than failing: the apply starts after another transaction of 2.5 s", async () => {
    const id = await storedCallback("accepted");
    // The embedded database has one connection: this transaction holds it, as a busy pool would.
    const busy = service.deps.db.transaction(service.deps.db.unscoped("test"), () => new Promise((resolve) => setTimeout(resolve, 2_500)), { timeout: 10_000 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const { result } = await applyStoredCallback(service.deps, id, {}, async () => ({ recorded: true, outcome: "duplicate", link: {} }));
    await busy;
    expect(result).toBe("duplicate");
    expect((await storedRow(id)).outcome).toBe("duplicate");
  });

  it("leaves a held row as it is", async () => {
    const id = await storedCallback("accepted");
    const { result } = await applyStoredCallback(service.deps, id, {}, async () => ({ recorded: false, result: "held" }));
    expect(result).toBe("held");
    expect(await storedRow(id)).toMatchObject({ outcome: "accepted", paymentId: null });
  });

  describe("an outcome recorded in the settlement's own statement (OutcomeRecorder)", () => {
    let payment: PaymentModel;
    beforeAll(async () => {
      const at = service.deps.clock.now();
      const owner = { id: randomUUID(), tenantId: defaultTenantId, phone: "254712345678", amount: 100 };
      const prompt = { reference: "R1", description: "Payment", createdAt: at, updatedAt: at };
      payment = await payments.create(service.deps.db.unscoped("test"), { ...owner, ...prompt });
    });
    const paymentNote = async () => (await payments.get(service.deps.db.unscoped("test"), payment.id)).resultDesc;

    /** A settlement that writes its row (a payment's result description) only if its statement recorded the outcome. */
    const settlesWith =
      (note: string, verdict: Extract<CallbackVerdict<never>, { recorded: true }>) =>
      async (tx: SettlementTx, now: Date, recorder: OutcomeRecorder): Promise<CallbackVerdict<never>> => {
        const unlessHandled = recorder.unlessHandled(verdict);
        if (!unlessHandled) throw new Error("expected an outcome to record");
        settledRow(await payments.settle(tx, payment, { resultDesc: note, updatedAt: now }, { unlessHandled }));
        return verdict;
      };

    it("records the outcome with the settlement's write and commits both", async () => {
      const id = await storedCallback("accepted");
      const { result } = await applyStoredCallback(service.deps, id, {}, settlesWith("Settled in one", { recorded: true, outcome: "applied", link: {} }));
      expect(result).toBe("applied");
      expect((await storedRow(id)).outcome).toBe("applied");
      expect(await paymentNote()).toBe("Settled in one");
    });

    it("rolls back and answers skipped when the row was handled first", async () => {
      const before = await paymentNote();
      const id = await storedCallback("duplicate");
      const { result } = await applyStoredCallback(service.deps, id, {}, settlesWith("Settled twice", { recorded: true, outcome: "applied", link: {} }));
      expect(result).toBe("skipped");
      expect((await storedRow(id)).outcome).toBe("duplicate");
      expect(await paymentNote()).toBe(before);
    });

    it("leaves a flagged outcome to the shared folder, which records it after the decision", async () => {
      const id = await storedCallback("accepted");
      const { result } = await applyStoredCallback(service.deps, id, {}, async (_tx, _now, recorder) => {
        expect(recorder.unlessHandled({ outcome: "flagged", flagReason: "looks wrong", link: {} })).toBeUndefined();
        return { recorded: true, outcome: "flagged", flagReason: "looks wrong", link: {} };
      });
      expect(result).toBe("flagged");
      expect(await storedRow(id)).toMatchObject({ outcome: "flagged", flagReason: "looks wrong" });
    });

    it("refuses a decision that differs from the outcome its settlement recorded, writing nothing", async () => {
      const before = await paymentNote();
      const id = await storedCallback("accepted");
      const settles = settlesWith("Recorded one thing", { recorded: true, outcome: "applied", link: {} });
      await expect(
        applyStoredCallback(service.deps, id, {}, async (tx, now, recorder) => {
          await settles(tx, now, recorder);
          return { recorded: true, outcome: "duplicate", link: {} };
        }),
      ).rejects.toThrow(/another outcome/);
      expect((await storedRow(id)).outcome).toBe("accepted");
      expect(await paymentNote()).toBe(before);
    });
  });
});
