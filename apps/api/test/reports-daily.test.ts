/**
 * The daily report through HTTP (docs/reports.md): GET /api/v1/reports/daily with an API key, on a hand-set
 * clock, after real money movements through the simulator — STK payments, C2B payments, a payout, a
 * reversal — settled just before, on and just after a Nairobi day (its edges at 21:00 UTC). The CSV is
 * read with a real CSV parser (csv-parse); another tenant's movements never show; cells that would start
 * a formula are prefixed; an empty day is the header alone; `mteja report daily` writes the same bytes.
 * A few thousand rows are read a page (REPORT_BATCH_SIZE) at a time from each kind, merged in order.
 */
import type { Database, TenantDb } from "@mteja/db";
import type { AppRouter } from "@mteja/domain";
import { createTRPCClient, httpBatchStreamLink, httpLink, TRPCClientError } from "@trpc/client";
import { parse } from "csv-parse/sync";
import { randomUUID } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import { describe, expect } from "vitest";
import { writeDailyReport } from "../src/cli/report.js";
import { adminKey, registerUser, RestClient, type TestApp } from "./support/app.js";
import { cliBuilt, runCli } from "./support/cli.js";
import { skipThisTarget, target } from "./support/database.js";
import { it } from "./support/fixture.js";
import type { DarajaApp } from "./support/daraja.js";
import { settledStkPayment, succeededPayout } from "./support/settled-money.js";
import type { Simulator } from "./support/simulator.js";
import { waitFor } from "./support/wait.js";

/** The clock of the service, set by hand to the instants a movement settles at. */
let current = Date.parse("2026-03-09T20:00:00.000Z");
const clock = { now: () => new Date(current), at: (iso: string) => void (current = Date.parse(iso)) };
const dataKey = "ab".repeat(32);
const header = "time,type,id,channel,reference,amount,mpesa_receipt,status,livemode";
/** A refund's id as the API shows it (docs/mpesa.md#refunds): `re_` and its uuid's 32 hex digits. */
const refundId = (uuid: string) => `re_${uuid.replace(/-/g, "")}`;

// Two rows a page: the day's few rows of each kind already take several pages, merged across them.
it.override({
  appEnv: { DATA_ENCRYPTION_KEY: dataKey },
  darajaOptions: {
    b2c: true,
    now: clock.now,
    env: { REPORT_BATCH_SIZE: "2", DATA_ENCRYPTION_KEY: dataKey, RATE_LIMITS: "off" },
  },
});

interface Row {
  time: string;
  type: string;
  id: string;
  channel: string;
  reference: string;
  amount: string;
  mpesa_receipt: string;
  status: string;
  livemode: string;
}

/** The CSV as a spreadsheet or a program reads it: RFC 4180 records, the header naming the columns. */
function rowsOf(csv: string): Row[] {
  return parse(csv, { columns: true, record_delimiter: "\r\n", skip_empty_lines: false }) as Row[];
}

describe.skipIf(skipThisTarget)("the daily report (GET /api/v1/reports/daily)", () => {
  let t: DarajaApp;
  let sim: Simulator;
  let key: string;
  const operator = { authorization: `Bearer ${adminKey}` };
  const server = () => new RestClient(t.url, "");
  const db = () => t.deps.db.unscoped("test");

  async function apiKeyOf(tenantId: string): Promise<string> {
    const created = await server().request("POST", `/api/v1/admin/tenants/${tenantId}/api-keys`, {
      body: { name: "Accounts" },
      headers: operator,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body.data.key as string;
  }

  /** The report as fetched: status, headers and the body's bytes as text. */
  async function report(query: string, apiKey = key, headers: Record<string, string> = {}) {
    const response = await fetch(`${t.url}/api/v1/reports/daily${query}`, {
      headers: { authorization: `Bearer ${apiKey}`, ...headers },
    });
    return { status: response.status, headers: response.headers, text: await response.text() };
  }

  async function csvOf(date: string, apiKey = key): Promise<string> {
    const answer = await report(`?date=${date}`, apiKey);
    expect(answer.status, answer.text).toBe(200);
    return answer.text;
  }

  /** A customer's STK payment, settled by the simulator's callback at the clock's instant. */
  const stkPayment = (amount: number, reference: string) => settledStkPayment(t, amount, reference);

  async function c2bPayment(account: string, amount: number) {
    const paid = await sim.c2bPay({ account, amount, phone: "0712345678", validation: false });
    expect(paid.status, JSON.stringify(paid)).toBe("completed");
    return db().payment.findFirstOrThrow({ where: { transId: paid.trans_id } });
  }

  const payout = (amount: number, occasion: string) => succeededPayout(t, amount, occasion);

  async function reversal(paymentId: string) {
    const asked = await server().request("POST", `/api/v1/payments/${paymentId}/reversal`, { token: key });
    expect(asked.status, JSON.stringify(asked.body)).toBe(202);
    return waitFor(async () => {
      const row = await db().refund.findFirst({ where: { paymentId, status: "SUCCESS" } });
      return row ?? undefined;
    });
  }

  /** What the report's rows of each movement must read. */
  const expected = {
    payment: (
      p: { id: string; channel: string; reference: string; amount: number; mpesaReceipt: string | null },
      time: string,
    ) => ({
      time,
      type: "payment",
      id: p.id,
      channel: p.channel,
      reference: p.reference,
      amount: String(p.amount),
      mpesa_receipt: p.mpesaReceipt ?? "",
      status: "SUCCESS",
      livemode: "true",
    }),
  };

  let rows: { [name: string]: any } = {};

  it.beforeAll(async ({ momo, sim: simulator }) => {
    t = momo;
    sim = simulator;
    key = await apiKeyOf("default");
    const registered = await server().request("POST", "/api/v1/admin/tenants/default/c2b/register", {
      body: {},
      headers: operator,
    });
    expect(registered.status, JSON.stringify(registered.body)).toBe(200);

    // The last instant of 9 March in Nairobi, then its first of 10 March.
    clock.at("2026-03-09T20:59:59.999Z");
    rows.dayBefore = await stkPayment(41, "RPTBEFORE");
    clock.at("2026-03-09T21:00:00.000Z");
    rows.first = await stkPayment(42, "RPTFIRST");
    clock.at("2026-03-10T03:00:00.000Z");
    rows.formulas = [];
    for (const [i, account] of ["=1+2", "+A1", "-A1", "@A1", 'A,"B"'].entries()) {
      clock.at(`2026-03-10T03:0${i}:00.000Z`);
      rows.formulas.push(await c2bPayment(account, 50 + i));
    }
    clock.at("2026-03-10T06:00:00.000Z");
    rows.cancelled = await stkPayment(2, "RPTCANCEL");
    expect(rows.cancelled.status).toBe("CANCELLED");
    clock.at("2026-03-10T07:00:00.000Z");
    rows.payout = await payout(150, "INV7");
    clock.at("2026-03-10T08:00:00.000Z");
    rows.reversal = await reversal(rows.first.id);
    // The same instant as the reversal: a payment comes before a refund.
    rows.sameInstant = await c2bPayment("SAMEINSTANT", 61);
    clock.at("2026-03-10T20:59:59.999Z");
    rows.last = await c2bPayment("RPTLAST", 44);
    clock.at("2026-03-10T21:00:00.000Z");
    rows.dayAfter = await stkPayment(45, "RPTAFTER");
    clock.at("2026-03-11T05:00:00.000Z");
  });

  it("lists the day's payments (STK, C2B), refunds (reversals) and payouts, oldest first", async () => {
    const answer = await report("?date=2026-03-10");
    expect(answer.status, answer.text).toBe(200);
    expect(answer.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(answer.headers.get("content-disposition")).toBe('attachment; filename="mteja-daily-2026-03-10.csv"');
    expect(answer.headers.get("cache-control")).toBe("no-store");
    // Streamed: its length is not known before the last row is read.
    expect(answer.headers.get("content-length")).toBeNull();
    expect(answer.headers.get("transfer-encoding")).toBe("chunked");

    const { first, formulas, payout: paidOut, reversal: reversed, sameInstant, last } = rows;
    const formulaRows = formulas.map((p: any, i: number) => expected.payment(p, `2026-03-10T06:0${i}:00+03:00`));
    expect(rowsOf(answer.text)).toEqual([
      expected.payment(first, "2026-03-10T00:00:00+03:00"),
      ...formulaRows.map((row: Row) => ({
        ...row,
        reference: /^[=+\-@]/.test(row.reference) ? `'${row.reference}` : row.reference,
      })),
      {
        time: "2026-03-10T10:00:00+03:00",
        type: "payout",
        id: paidOut.id,
        channel: "b2c",
        reference: "INV7",
        amount: "150",
        mpesa_receipt: paidOut.transactionId,
        status: "SUCCESS",
        livemode: "true",
      },
      expected.payment(sameInstant, "2026-03-10T11:00:00+03:00"),
      {
        time: "2026-03-10T11:00:00+03:00",
        type: "refund",
        id: refundId(reversed.id),
        channel: "reversal",
        reference: "RPTFIRST",
        amount: "42",
        mpesa_receipt: reversed.receipt,
        status: "SUCCESS",
        livemode: "true",
      },
      expected.payment(last, "2026-03-10T23:59:59+03:00"),
    ]);
    expect(first.channel).toBe("stk");
    expect(formulas[0].channel).toBe("c2b");
    expect(paidOut.transactionId).toMatch(/^[A-Z0-9]{10}$/);
    expect(reversed.receipt).toMatch(/^[A-Z0-9]{10}$/);

    // The day before and the day after each have their edge movement, alone.
    expect(rowsOf(await csvOf("2026-03-09"))).toEqual([expected.payment(rows.dayBefore, "2026-03-09T23:59:59+03:00")]);
    expect(rowsOf(await csvOf("2026-03-11"))).toEqual([expected.payment(rows.dayAfter, "2026-03-11T00:00:00+03:00")]);
  });

  it("writes RFC 4180 with CRLF and a header row, and prefixes a cell that would start a formula with '", async () => {
    const text = await csvOf("2026-03-10");
    expect(text.startsWith(`${header}\r\n`)).toBe(true);
    expect(text.endsWith("\r\n")).toBe(true);
    // Every line ends with CRLF: no bare LF anywhere (no field here holds a line break).
    expect(text.replace(/\r\n/g, "")).not.toMatch(/[\r\n]/);
    const lines = text.split("\r\n");
    const [equals, plus, minus, at, quoted] = rows.formulas.map((p: { id: string }) =>
      lines.find((line) => line.includes(p.id)),
    );
    expect(equals).toContain(",c2b,'=1+2,50,");
    expect(plus).toContain(",c2b,'+A1,51,");
    expect(minus).toContain(",c2b,'-A1,52,");
    expect(at).toContain(",c2b,'@A1,53,");
    expect(quoted).toContain(',c2b,"A,""B""",54,');
    expect(rowsOf(text).find((row) => row.id === rows.formulas[4].id)?.reference).toBe('A,"B"');
  });

  it("answers a day with nothing with the header alone; without a date, yesterday by the clock", async () => {
    expect(await csvOf("2026-03-05")).toBe(`${header}\r\n`);
    // A day that has not come yet has nothing either.
    expect(await csvOf("2030-01-01")).toBe(`${header}\r\n`);
    // The clock reads 11 March, 08:00 in Nairobi: yesterday is 10 March.
    const byDefault = await report("");
    expect(byDefault.status).toBe(200);
    expect(byDefault.headers.get("content-disposition")).toBe('attachment; filename="mteja-daily-2026-03-10.csv"');
    expect(byDefault.text).toBe(await csvOf("2026-03-10"));
  });

  it("shows the key's tenant only: another shop's movements of that day are in its own report alone", async () => {
    const otherId = "report-other";
    expect(
      (
        await server().request("POST", "/api/v1/admin/tenants", {
          body: { id: otherId, name: "Duka Jingine" },
          headers: operator,
        })
      ).status,
    ).toBe(200);
    const otherKey = await apiKeyOf(otherId);
    const owner = await registerUser(new RestClient(t.url, otherId));
    const settledAt = new Date("2026-03-10T09:30:00.000Z");
    const payment = await db().payment.create({
      data: {
        tenantId: otherId,
        phone: "254712345678",
        amount: 700,
        reference: "OTHERSHOP",
        description: "Other",
        status: "SUCCESS",
        mpesaReceipt: "OTH1234567",
        settledAt,
      },
    });
    const reversed = await db().refund.create({
      data: {
        tenantId: otherId,
        paymentId: payment.id,
        amount: 700,
        method: "reversal",
        originalReceipt: "OTH1234567",
        status: "SUCCESS",
        receipt: "OTH7654321",
        requestedBy: "user:x",
        settledAt,
      },
    });
    const paidOut = await db().payout.create({
      data: {
        tenantId: otherId,
        requestedBy: owner.id,
        phone: "254712345678",
        amount: 300,
        commandId: "BusinessPayment",
        remarks: "Other payout",
        status: "SUCCESS",
        originatorConversationId: randomUUID(),
        transactionId: "OTH0000001",
        settledAt,
      },
    });

    const ours = await csvOf("2026-03-10");
    for (const id of [payment.id, refundId(reversed.id), paidOut.id]) expect(ours).not.toContain(id);
    const theirs = rowsOf(await csvOf("2026-03-10", otherKey));
    expect(theirs.map((row) => [row.type, row.id, row.channel, row.reference, row.amount])).toEqual([
      ["payment", payment.id, "stk", "OTHERSHOP", "700"],
      ["refund", refundId(reversed.id), "reversal", "OTHERSHOP", "700"],
      ["payout", paidOut.id, "b2c", "Other payout", "300"],
    ]);
    // X-Tenant-ID may name the key's own tenant only.
    expect((await report("?date=2026-03-10", key, { "x-tenant-id": otherId })).status).toBe(401);
  });

  it("refuses a date that is not a day (422 naming date), a missing key (401), a customer's token (403)", async () => {
    for (const date of ["2026-02-30", "2026-3-1", "yesterday", "2026-03-10T00:00:00Z"]) {
      const refused = await report(`?date=${encodeURIComponent(date)}`);
      expect(refused.status, date).toBe(422);
      expect(refused.headers.get("content-type")).toMatch(/^application\/json/);
      const body = JSON.parse(refused.text);
      expect(body).toMatchObject({ success: false, error: { code: "VALIDATION_ERROR", details: [{ path: "date" }] } });
      expect(body.error.details).toHaveLength(1);
    }
    const inSwahili = JSON.parse((await report("?date=2026-02-30", key, { "accept-language": "sw" })).text);
    expect(inSwahili.error.details[0]).toMatchObject({ path: "date", message: expect.stringContaining("date") });
    expect(inSwahili.error.details[0].message).not.toBe(
      JSON.parse((await report("?date=2026-02-30")).text).error.details[0].message,
    );

    const anonymous = await fetch(`${t.url}/api/v1/reports/daily?date=2026-03-10`);
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as { error: { code: string } }).error.code).toBe("AUTH_REQUIRED");
    const customer = await t.customer();
    const asCustomer = await report("?date=2026-03-10", customer.accessToken);
    expect(asCustomer.status).toBe(403);
    expect(JSON.parse(asCustomer.text).error.code).toBe("FORBIDDEN");
  });

  it("is documented once: the text/csv answer, the API key and its errors in /openapi.json", async () => {
    const doc = (await server().get("/openapi.json")).body;
    const operation = doc.paths["/api/v1/reports/daily"].get;
    expect(operation.security).toEqual([{ apiKey: [] }]);
    expect(Object.keys(operation.responses["200"].content)).toEqual(["text/csv"]);
    expect(operation.responses["200"].content["text/csv"].example.startsWith(`${header}\r\n`)).toBe(true);
    expect(operation.parameters.map((p: { name: string; in: string }) => `${p.in} ${p.name}`)).toEqual(
      expect.arrayContaining(["query date"]),
    );
    for (const [status, code] of [
      ["401", "AUTH_REQUIRED"],
      ["401", "INVALID_TOKEN"],
      ["403", "FORBIDDEN"],
      ["422", "VALIDATION_ERROR"],
      ["503", "SERVICE_UNAVAILABLE"],
    ]) {
      expect(
        Object.keys(operation.responses[status!].content["application/json"].examples),
        `${status} ${code}`,
      ).toContain(code);
    }
  });

  it("streams the same text over tRPC with a streaming link; a link that cannot take a stream is told so", async () => {
    const headers = () => ({ authorization: `Bearer ${key}` });
    const streaming = createTRPCClient<AppRouter>({ links: [httpBatchStreamLink({ url: `${t.url}/trpc`, headers })] });
    const file = await streaming.reports.daily.query({ date: "2026-03-10" });
    expect(file.filename).toBe("mteja-daily-2026-03-10.csv");
    let text = "";
    for await (const chunk of file.chunks) text += chunk;
    expect(text).toBe(await csvOf("2026-03-10"));

    const plain = createTRPCClient<AppRouter>({ links: [httpLink({ url: `${t.url}/trpc`, headers })] });
    const error = await plain.reports.daily.query({ date: "2026-03-10" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TRPCClientError);
    expect((error as TRPCClientError<AppRouter>).shape?.error.code).toBe("MALFORMED_REQUEST");
    expect((error as TRPCClientError<AppRouter>).message).toMatch(/REST path|httpBatchStreamLink/);
  });

  it("`mteja report daily` writes the same bytes as the HTTP body, to stdout or to --out", async () => {
    const body = Buffer.from(
      await (
        await fetch(`${t.url}/api/v1/reports/daily?date=2026-03-10`, { headers: { authorization: `Bearer ${key}` } })
      ).arrayBuffer(),
    );
    const written: Buffer[] = [];
    const out = new PassThrough();
    out.on("data", (chunk: Buffer) => written.push(chunk));
    await writeDailyReport(t.deps, { tenant: "default", date: "2026-03-10" }, out);
    expect(Buffer.concat(written).equals(body)).toBe(true);

    const dir = await mkdtemp(path.join(tmpdir(), "mteja-report-"));
    try {
      await writeDailyReport(t.deps, { tenant: "default", date: "2026-03-10" }, path.join(dir, "in-process.csv"));
      expect((await readFile(path.join(dir, "in-process.csv"))).equals(body)).toBe(true);
      await expect(writeDailyReport(t.deps, { tenant: "no-such-shop", date: "2026-03-10" }, out)).rejects.toMatchObject(
        { code: "NOT_FOUND" },
      );

      // The built command, on PostgreSQL (another process reaching the same database).
      if (target !== "postgres" || !cliBuilt) return;
      const env = { NODE_ENV: "test", DATABASE_URL: t.database.url!, DATA_ENCRYPTION_KEY: dataKey };
      const printed = await runCli(["report", "daily", "--tenant", "default", "--date", "2026-03-10"], env);
      expect(printed.code, printed.stderr).toBe(0);
      expect(Buffer.from(printed.stdout).equals(body)).toBe(true);
      const saved = await runCli(
        ["report", "daily", "--tenant", "default", "--date", "2026-03-10", "--out", path.join(dir, "cli.csv")],
        env,
      );
      expect(saved.code, saved.stderr).toBe(0);
      expect(saved.stdout).toBe("");
      expect((await readFile(path.join(dir, "cli.csv"))).equals(body)).toBe(true);
      const refused = await runCli(["report", "daily", "--tenant", "default", "--date", "2026-02-30"], env);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain("VALIDATION_ERROR");
      expect(refused.stderr).toContain("date:");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

/**
 * A tenant's client whose reads of the report's three kinds are counted, with the page size each asked
 * for: the repository, seen from outside.
 */
function countingReads(db: Database, reads: Array<{ model: string; take: unknown }>): Database {
  const counted = (client: TenantDb) =>
    new Proxy(client, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver);
        if (property !== "payment" && property !== "payout" && property !== "refund") return value;
        return new Proxy(value as object, {
          get(model, name, modelReceiver) {
            const method = Reflect.get(model, name, modelReceiver);
            if (name !== "findMany") return method;
            return (args: { take?: unknown }) => {
              reads.push({ model: property, take: args?.take });
              return (method as (args: unknown) => unknown).call(model, args);
            };
          },
        });
      },
    });
  return { ...db, forTenant: (tenantId: string) => counted(db.forTenant(tenantId)) };
}

describe.skipIf(skipThisTarget)("the daily report of a busy day", () => {
  const reads: Array<{ model: string; take: unknown }> = [];
  let t: TestApp;
  let key: string;
  const tenantId = "report-busy";
  const batch = 50;
  it.beforeAll(async ({ app, launch }) => {
    // A second instance on the same database, whose tenant clients count the report's reads.
    const database = { db: countingReads(app.database.db, reads), url: app.database.url, drop: async () => {} };
    t = await launch.app({ REPORT_BATCH_SIZE: String(batch), DATA_ENCRYPTION_KEY: dataKey }, { database });
    const operator = { authorization: `Bearer ${adminKey}` };
    const client = new RestClient(t.url, "");
    expect(
      (
        await client.request("POST", "/api/v1/admin/tenants", {
          body: { id: tenantId, name: "Duka Kubwa" },
          headers: operator,
        })
      ).status,
    ).toBe(200);
    key = (
      await client.request("POST", `/api/v1/admin/tenants/${tenantId}/api-keys`, {
        body: { name: "Accounts" },
        headers: operator,
      })
    ).body.data.key;
  });

  it(
    "reads each kind a page at a time (REPORT_BATCH_SIZE rows) and merges 3,300 rows in settlement order",
    { timeout: 120_000 },
    async () => {
      const db = t.deps.db.unscoped("test");
      const owner = await registerUser(new RestClient(t.url, tenantId));
      const dayStart = Date.parse("2026-04-14T21:00:00.000Z");
      const at = (ms: number) => new Date(dayStart + ms);
      // Three payments to a millisecond (pages end inside a millisecond: the keyset goes on by id), a
      // payout on every fourth millisecond and a reversal on every seventh (just before), among them.
      const payments = Array.from({ length: 2400 }, (_, i) => ({
        id: randomUUID(),
        tenantId,
        phone: "254712345678",
        amount: 10 + (i % 90),
        reference: `BUSY${i}`,
        description: "Busy",
        status: "SUCCESS",
        channel: i % 2 ? "c2b" : "stk",
        mpesaReceipt: `B${String(i).padStart(9, "0")}`,
        settledAt: at(Math.floor(i / 3)),
      }));
      // Not money that moved: never read into the report.
      const failed = Array.from({ length: 30 }, (_, i) => ({
        ...payments[i]!,
        id: randomUUID(),
        status: "FAILED",
        mpesaReceipt: null,
      }));
      await db.payment.createMany({ data: [...payments, ...failed] });
      const reversals = Array.from({ length: 300 }, (_, k) => ({
        id: randomUUID(),
        tenantId,
        paymentId: payments[k]!.id,
        amount: payments[k]!.amount,
        method: "reversal",
        originalReceipt: payments[k]!.mpesaReceipt,
        status: "SUCCESS",
        receipt: `R${String(k).padStart(9, "0")}`,
        requestedBy: "api_key:test",
        settledAt: at(k * 7 - 1),
      }));
      await db.refund.createMany({ data: reversals });
      const payouts = Array.from({ length: 600 }, (_, j) => ({
        id: randomUUID(),
        tenantId,
        requestedBy: owner.id,
        phone: "254712345678",
        amount: 100 + j,
        commandId: "BusinessPayment",
        remarks: `Payout ${j}`,
        status: "SUCCESS",
        originatorConversationId: randomUUID(),
        transactionId: `P${String(j).padStart(9, "0")}`,
        settledAt: at(j * 4),
      }));
      await db.payout.createMany({ data: payouts });

      reads.length = 0;
      const response = await fetch(`${t.url}/api/v1/reports/daily?date=2026-04-15`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(response.status).toBe(200);
      // The body arrives in pieces while the pages are read.
      let pieces = 0;
      let text = "";
      const decoder = new TextDecoder();
      for await (const piece of response.body!) {
        pieces += 1;
        text += decoder.decode(piece, { stream: true });
      }
      expect(pieces).toBeGreaterThan(1);

      const kindOrder = { payment: 0, refund: 1, payout: 2 };
      const expectedOrder = [
        ...payments.map((p) => ({ type: "payment" as const, id: p.id, at: p.settledAt.getTime() })),
        ...reversals.map((r) => ({ type: "refund" as const, id: refundId(r.id), at: r.settledAt.getTime() })),
        ...payouts.map((p) => ({ type: "payout" as const, id: p.id, at: p.settledAt.getTime() })),
      ]
        .filter((row) => row.at >= dayStart)
        .sort(
          (a, b) => a.at - b.at || kindOrder[a.type] - kindOrder[b.type] || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
        );
      const rows = rowsOf(text);
      expect(rows).toHaveLength(3299); // the first reversal settled the day before
      expect(rows.map((row) => `${row.type} ${row.id}`)).toEqual(expectedOrder.map((row) => `${row.type} ${row.id}`));

      // A page of 50 at a time; after a full page one more read finds the end.
      const pages = (model: string) => reads.filter((read) => read.model === model);
      expect(reads.every((read) => read.take === batch)).toBe(true);
      expect(pages("payment")).toHaveLength(2400 / batch + 1);
      expect(pages("refund")).toHaveLength(Math.ceil(299 / batch));
      expect(pages("payout")).toHaveLength(600 / batch + 1);
    },
  );
});
