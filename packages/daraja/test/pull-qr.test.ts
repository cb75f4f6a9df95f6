/**
 * Pull Transactions and Dynamic QR in the forms the sources show (docs/daraja-wire-format.md#pull-transactions,
 * #dynamic-qr): the register answer with or without spaced keys, rows nested twice with lower-case keys,
 * `msisdn` a number, `amount` a decimal string, `trxDate` with or without a zone; paging by row offset or
 * by page index (`TotalPages`); Pull's `401.001` stale-token answer refreshed once.
 */
import { describe, expect, it } from "vitest";
import { createDarajaClient, parseDynamicQrAnswer, parsePulledTransaction, parseTrxDate, pullDate } from "../src/index.js";
import { SANDBOX } from "./fake-daraja.js";

type Answer = { status: number; body: unknown };

/** A Daraja answering by path; every request's path and JSON body are kept. */
function stubDaraja(answer: (path: string, body: any, token: string) => Answer) {
  const sent: { path: string; body: any }[] = [];
  let tokens = 0;
  const fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    // ky hands fetch a Request.
    const request = input instanceof Request ? input : new Request(input, init);
    const url = new URL(request.url);
    if (url.pathname === "/oauth/v1/generate") {
      tokens += 1;
      return new Response(JSON.stringify({ access_token: `token-${tokens}`, expires_in: "3599" }), { status: 200 });
    }
    const text = await request.text();
    const body = text ? JSON.parse(text) : undefined;
    sent.push({ path: url.pathname, body });
    const auth = request.headers.get("authorization") ?? "";
    const reply = answer(url.pathname, body, auth.replace(/^Bearer /, ""));
    return new Response(JSON.stringify(reply.body), { status: reply.status, headers: { "content-type": "application/json" } });
  }) as typeof globalThis.fetch;
  const client = createDarajaClient({
    baseUrl: "http://daraja.test",
    consumerKey: SANDBOX.consumerKey,
    consumerSecret: SANDBOX.consumerSecret,
    shortcode: SANDBOX.shortcode,
    passkey: SANDBOX.passkey,
    transactionType: "CustomerPayBillOnline",
    retryDelaysMs: [],
    fetch,
  });
  return { client, sent, tokens: () => tokens };
}

const row = (id: string, extra: Record<string, unknown> = {}) => ({
  transactionId: id,
  trxDate: "2026-12-02T10:13:00+03:00",
  msisdn: 254722000000,
  sender: "JOHN DOE",
  transactiontype: "c2b-pay-bill-debit",
  billreference: "A1042",
  amount: "168.00",
  organizationname: "Duka",
  ...extra,
});

describe("Pull Transactions", () => {
  it("reads a row in the wire's forms: msisdn a number, amount a decimal string, trxDate with Z, an offset or none", () => {
    const read = parsePulledTransaction(row("SLC7RT61SV", { amount: "2697.0" }));
    expect(read.ok && read.value).toMatchObject({ transactionId: "SLC7RT61SV", msisdn: "254722000000", amount: 2697, amountText: "2697.0" });
    expect(parseTrxDate("2026-12-02T10:13:00+03:00")?.toISOString()).toBe("2026-12-02T07:13:00.000Z");
    expect(parseTrxDate("2020-08-05T10:13:00Z")?.toISOString()).toBe("2020-08-05T10:13:00.000Z");
    expect(parseTrxDate("2026-12-02 10:13:00")?.toISOString()).toBe("2026-12-02T07:13:00.000Z");
    expect(parseTrxDate("yesterday")).toBeNull();
    expect(pullDate(new Date("2026-12-02T05:00:00.000Z"))).toBe("2026-12-02 08:00:00");
    expect(parsePulledTransaction(row("x")).ok).toBe(false);
  });

  it("reads the register answer with spaced keys (the sandbox) or the portal's; 1001 is success, anything else a refusal", async () => {
    const answers: Answer[] = [
      { status: 200, body: { ResponseRefID: "1", "Response Status": "1000", ShortCode: "174379", "Response Description": "Shortcode Registered Successfully" } },
      { status: 200, body: { ResponseRefID: "2", ResponseStatus: "1001", ShortCode: "174379", ResponseDescription: "ShortCode already Registered" } },
      { status: 200, body: { ResponseRefID: "3", ResponseStatus: "1002", ShortCode: "174379", ResponseDescription: "Refused" } },
    ];
    const { client, sent } = stubDaraja(() => answers.shift()!);
    const request = { shortCode: "174379", nominatedNumber: "254722000000", callbackUrl: "https://shop.example/hooks/pull" };
    expect(await client.pullRegister(request)).toMatchObject({ status: "1000", description: "Shortcode Registered Successfully" });
    expect(await client.pullRegister(request)).toMatchObject({ status: "1001" });
    await expect(client.pullRegister(request)).rejects.toMatchObject({ outcome: "refused", errorCode: "1002" });
    expect(sent[0]).toEqual({
      path: "/pulltransactions/v1/register",
      body: { ShortCode: "174379", RequestType: "Pull", NominatedNumber: "254722000000", CallBackURL: "https://shop.example/hooks/pull" },
    });
  });

  it("pages by row offset until no records, and by page index when TotalPages comes; every inner list is read", async () => {
    const byOffset = stubDaraja((_path, body) => {
      const offset = Number(body.OffSetValue);
      if (offset >= 3) return { status: 200, body: { ResponseCode: "1001", ResponseMessage: "No records found", Response: [[]] } };
      const rows = [row(`RCPT00000${offset}`), row(`RCPT00000${offset + 1}`)].slice(0, 3 - offset);
      return { status: 200, body: { ResponseRefID: "r", ResponseCode: "1000", ResponseMessage: "Success", Response: [rows.slice(0, 1), rows.slice(1)] } };
    });
    const from = new Date("2026-12-02T05:00:00.000Z");
    const to = new Date("2026-12-02T06:00:00.400Z");
    const pulled = await byOffset.client.pullTransactions({ shortCode: "174379", from, to });
    expect(pulled.transactions.map((t) => t.transactionId)).toEqual(["RCPT000000", "RCPT000001", "RCPT000002"]);
    expect(byOffset.sent.map((s) => s.body.OffSetValue)).toEqual(["0", "2", "3"]);
    // The end rounded up to its second: it is included.
    expect(byOffset.sent[0]!.body).toMatchObject({ StartDate: "2026-12-02 08:00:00", EndDate: "2026-12-02 09:00:01" });

    const byPage = stubDaraja((_path, body) => {
      const page = Number(body.OffSetValue);
      return { status: 200, body: { RequestID: "q", ResponseCode: "1000", ResponseMessage: "Success", TotalPages: 2, Response: [[row(`PAGE00000${page}`)]] } };
    });
    const paged = await byPage.client.pullTransactions({ shortCode: "174379", from, to });
    expect(paged.transactions.map((t) => t.transactionId)).toEqual(["PAGE000000", "PAGE000001"]);
    expect(byPage.sent.map((s) => s.body.OffSetValue)).toEqual(["0", "1"]);

    const none = stubDaraja(() => ({ status: 200, body: { ResponseCode: "1001", ResponseMessage: "No records found or Organization Name not available", Response: [[]] } }));
    expect(await none.client.pullTransactions({ shortCode: "174379", from, to })).toMatchObject({ noRecords: true, transactions: [] });
  });

  it("stops on a page with nothing new (a Daraja that ignores the offset) and refreshes a stale token once on Pull's 401.001", async () => {
    const same = stubDaraja(() => ({ status: 200, body: { ResponseCode: "1000", ResponseMessage: "Success", Response: [[row("SAME000001")]] } }));
    const pulled = await same.client.pullTransactions({ shortCode: "174379", from: new Date(0), to: new Date(1000) });
    expect(pulled.transactions).toHaveLength(1);
    expect(same.sent).toHaveLength(2);

    const stale = stubDaraja((_path, _body, token) =>
      token === "token-1"
        ? { status: 401, body: { requestId: "s", errorCode: "401.001", errorMessage: "Error Occurred - Invalid Access Token - " } }
        : { status: 200, body: { ResponseCode: "1001", ResponseMessage: "No records found", Response: [[]] } },
    );
    expect(await stale.client.pullTransactions({ shortCode: "174379", from: new Date(0), to: new Date(1000) })).toMatchObject({ noRecords: true });
    expect(stale.tokens()).toBe(2);
  });
});

describe("Dynamic QR", () => {
  it("sends Size as a string and Amount as a number; reads the sandbox's answer and a data: prefix; an errorCode is a failure", async () => {
    const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNgAAAAAgABSK+kcQAAAABJRU5ErkJggg==";
    const answers: Answer[] = [
      { status: 200, body: { ResponseCode: "00", ResponseDescription: "The service request is processed successfully.", QRCode: png } },
      { status: 200, body: { ResponseCode: "AG_20191219_000043fdf61864fe9ff5", RequestID: "16738-27456357-1", QRCode: `data:image/png;base64,${png}` } },
      { status: 400, body: { requestId: "e", errorCode: "400.002.05", errorMessage: "Invalid Request Payload" } },
    ];
    const { client, sent } = stubDaraja(() => answers.shift()!);
    const request = { merchantName: "Duka", refNo: "A1042", amount: 1500, trxCode: "PB" as const, cpi: "174379", size: 300 };
    expect(await client.dynamicQr(request)).toEqual({ qrCode: png, responseCode: "00", responseDescription: "The service request is processed successfully." });
    expect((await client.dynamicQr(request)).qrCode).toBe(png);
    await expect(client.dynamicQr(request)).rejects.toMatchObject({ outcome: "refused", errorCode: "400.002.05" });
    expect(sent[0]).toEqual({
      path: "/mpesa/qrcode/v1/generate",
      body: { MerchantName: "Duka", RefNo: "A1042", Amount: 1500, TrxCode: "PB", CPI: "174379", Size: "300" },
    });
    expect(parseDynamicQrAnswer({ ResponseCode: "00", QRCode: "" }).ok).toBe(false);
  });
});
