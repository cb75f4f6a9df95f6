/**
 * C2B samples this service relies on (docs/mpesa.md#c2b "Where the sources disagree"), each with where
 * it comes from: the Daraja portal's v2 page, the older register-URL page, the 2019 Node library's
 * integration test and an unofficial copy of the 2017 docs.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { C2B_CONFIRMATION_ANSWER, c2bValidationAnswer, createDarajaClient, DarajaError, maskMsisdn, parseC2bNotification } from "../src/index.js";
import type { C2bNotification, ParseResult } from "../src/index.js";
import { SANDBOX, startFakeDaraja } from "./fake-daraja.js";
import type { FakeDaraja } from "./fake-daraja.js";

function value<T>(result: ParseResult<T>): T {
  if (!result.ok) throw new Error(`expected ok, got: ${result.error}`);
  return result.value;
}

// Daraja portal, CustomerToBusiness (v2): masked MSISDN, amount as a string with cents.
const portalV2 = {
  TransactionType: "Pay Bill",
  TransID: "RKL51ZDR4F",
  TransTime: "20231121121325",
  TransAmount: "5.00",
  BusinessShortCode: "600966",
  BillRefNumber: "Sample Transaction",
  InvoiceNumber: "",
  OrgAccountBalance: "25.00",
  ThirdPartyTransID: "",
  MSISDN: "2547 ***** 126",
  FirstName: "NICHOLAS",
  MiddleName: "",
  LastName: "",
};

describe("parseC2bNotification", () => {
  it("reads the portal v2 sample: amount from a string, the masked number kept masked", () => {
    expect(value(parseC2bNotification(portalV2))).toEqual<C2bNotification>({
      transactionType: "Pay Bill",
      transId: "RKL51ZDR4F",
      transTime: "20231121121325",
      amount: 5,
      businessShortCode: "600966",
      billRefNumber: "Sample Transaction",
      invoiceNumber: "",
      orgAccountBalance: "25.00",
      thirdPartyTransId: "",
      msisdnForm: "masked",
      maskedMsisdn: "2547*****126",
      firstName: "NICHOLAS",
    });
  });

  it("reads the older page's masked form and a validation body with a blank balance", () => {
    const parsed = value(parseC2bNotification({ ...portalV2, MSISDN: "25470****149", OrgAccountBalance: "", TransAmount: "10" }));
    expect(parsed).toMatchObject({ msisdnForm: "masked", maskedMsisdn: "25470****149", orgAccountBalance: "", amount: 10 });
  });

  it("reads a plain number (2019 Node library test, 2017 docs) and never shows it whole", () => {
    const parsed = value(parseC2bNotification({ ...portalV2, MSISDN: "254708374149", TransAmount: "10.00" }));
    expect(parsed.msisdnForm).toBe("plain");
    expect(parsed.maskedMsisdn).toBe("2547*****149");
    expect(JSON.stringify(parsed)).not.toContain("254708374149");
  });

  it("reads a hashed number (v1 per the portal, v2 per field reports) as a hash, not a phone", () => {
    const hash = "4d3c0e9a6c1b0f7f1a9f1e1c3a5d2b7e8f6a4c2e0b9d7f5a3c1e8b6d4f2a0c9e";
    const parsed = value(parseC2bNotification({ ...portalV2, MSISDN: hash }));
    expect(parsed).toMatchObject({ msisdnForm: "hashed", maskedMsisdn: "hashed" });
  });

  it("accepts numbers where the samples have strings (mpesakit types short code and MSISDN as int)", () => {
    const parsed = value(parseC2bNotification({ ...portalV2, BusinessShortCode: 600966, MSISDN: 254708374149, TransAmount: 250 }));
    expect(parsed).toMatchObject({ businessShortCode: "600966", amount: 250, msisdnForm: "plain" });
  });

  it("accepts missing optional fields (2017 docs: empty TransactionType; data minimisation: no names)", () => {
    const { FirstName: _f, MiddleName: _m, LastName: _l, InvoiceNumber: _i, ThirdPartyTransID: _t, ...rest } = portalV2;
    const parsed = value(parseC2bNotification({ ...rest, TransactionType: "" }));
    expect(parsed).toMatchObject({ transactionType: "", firstName: "", invoiceNumber: "", thirdPartyTransId: "" });
  });

  it("refuses bodies without a receipt, an amount or a short code", () => {
    expect(parseC2bNotification({ ...portalV2, TransID: "" }).ok).toBe(false);
    expect(parseC2bNotification({ ...portalV2, TransAmount: "ten" }).ok).toBe(false);
    expect(parseC2bNotification({ ...portalV2, TransAmount: "-5" }).ok).toBe(false);
    expect(parseC2bNotification({ ...portalV2, BusinessShortCode: "60" }).ok).toBe(false);
    expect(parseC2bNotification({ Body: { stkCallback: {} } }).ok).toBe(false);
  });
});

describe("answers", () => {
  it("accepts with the string \"0\" and rejects with Daraja's code; confirms with the number 0", () => {
    expect(c2bValidationAnswer()).toEqual({ ResultCode: "0", ResultDesc: "Accepted" });
    expect(c2bValidationAnswer("C2B00012")).toEqual({ ResultCode: "C2B00012", ResultDesc: "Rejected" });
    expect(C2B_CONFIRMATION_ANSWER).toEqual({ ResultCode: 0, ResultDesc: "Success" });
  });

  it("masks every form of number", () => {
    expect(maskMsisdn("0708374149")).toBe("2547*****149");
    expect(maskMsisdn("")).toBe("");
    expect(maskMsisdn("not a number")).toBe("*****");
  });
});

describe("registerC2bUrls", () => {
  let fake: FakeDaraja;
  beforeEach(async () => {
    fake = await startFakeDaraja();
  });
  afterEach(() => fake.close());

  const client = (overrides = {}) =>
    createDarajaClient({
      baseUrl: fake.url,
      consumerKey: SANDBOX.consumerKey,
      consumerSecret: SANDBOX.consumerSecret,
      shortcode: SANDBOX.shortcode,
      passkey: SANDBOX.passkey,
      transactionType: "CustomerPayBillOnline",
      retryDelaysMs: [5],
      ...overrides,
    });
  const request = {
    shortCode: "600984",
    responseType: "Completed" as const,
    confirmationUrl: "https://shop.example/api/momo/callback/c2b/confirmation?token=t",
    validationUrl: "https://shop.example/api/momo/callback/c2b/validation?token=t",
  };

  it("registers on the v2 path by default and reads Daraja's OriginatorCoversationID spelling", async () => {
    const answer = await client().registerC2bUrls(request);
    expect(answer).toEqual({ originatorConversationId: "6e86-45dd-91ac-fd5d4178ab523408729", responseCode: "0", responseDescription: "Success", version: "v2" });
    expect(fake.calls["/mpesa/c2b/v2/registerurl"]).toEqual([
      { ShortCode: "600984", ResponseType: "Completed", ConfirmationURL: request.confirmationUrl, ValidationURL: request.validationUrl },
    ]);
  });

  it("tries the other version once when the app lacks the product (401.003.01 'no apiproduct match')", async () => {
    (fake.script["/mpesa/c2b/v2/registerurl"] ??= []).push(() => ({
      status: 401,
      body: { requestId: "r-1", errorCode: "401.003.01", errorMessage: "Error Occurred - Invalid Access Token - Invalid API call as no apiproduct match found" },
    }));
    const answer = await client().registerC2bUrls(request);
    expect(answer.version).toBe("v1");
    expect(fake.calls["/mpesa/c2b/v1/registerurl"]).toHaveLength(1);
  });

  it("uses the configured version, and reads the other spelling and an all-zero code", async () => {
    (fake.script["/mpesa/c2b/v1/registerurl"] ??= []).push(() => ({
      status: 200,
      body: { OriginatorConversationID: "abc", ConversationID: "", ResponseCode: "000000", ResponseDescription: "success" },
    }));
    const answer = await client({ c2bRegisterVersion: "v1" }).registerC2bUrls(request);
    expect(answer).toEqual({ originatorConversationId: "abc", responseCode: "000000", responseDescription: "success", version: "v1" });
  });

  it("reports Daraja's refusal (URLs already registered) as a refused request", async () => {
    (fake.script["/mpesa/c2b/v2/registerurl"] ??= []).push(() => ({ status: 400, body: { requestId: "r-2", errorCode: "400.003.02", errorMessage: "Bad Request - Invalid ValidationURL - URL has the word MPESA" } }));
    const error = await client().registerC2bUrls(request).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DarajaError);
    expect((error as DarajaError).outcome).toBe("refused");
    expect((error as DarajaError).errorCode).toBe("400.003.02");
  });
});
