import { describe, expect, it } from "vitest";
import { maskKnownPhones, maskPaymentPhonesInEvent, maskPhonesInJsonText, maskStoredCallbackBody, storedPhoneForms } from "../../src/data-rights/mask-evidence.js";

/** Daraja's bodies as docs/daraja-wire-format.md shows them, with their spacing and number formats. */
const stkSuccess = `{
  "Body": {
    "stkCallback": {
      "MerchantRequestID": "29115-34620561-1",
      "CheckoutRequestID": "ws_CO_191220191020363925",
      "ResultCode": 0,
      "ResultDesc": "The service request is processed successfully.",
      "CallbackMetadata": {
        "Item": [
          { "Name": "Amount", "Value": 1.00 },
          { "Name": "MpesaReceiptNumber", "Value": "NLJ7RT61SV" },
          { "Name": "TransactionDate", "Value": 20191219102115 },
          { "Name": "PhoneNumber", "Value": 254708374149 }
        ]
      }
    }
  }
}`;

const b2cResult = `{"Result":{"ResultType":0,"ResultCode":0,"ResultDesc":"The service request is processed successfully.","OriginatorConversationID":"53e3-4aa8-9fe0-8fb5e4092cdd3533373","ConversationID":"AG_20240706_2010364430d9bbdaf872","TransactionID":"SG632NMUAB","ResultParameters":{"ResultParameter":[{"Key":"TransactionAmount","Value":10},{"Key":"TransactionReceipt","Value":"SG632NMUAB"},{"Key":"ReceiverPartyPublicName","Value":"254705912645 - NICHOLAS JOHN SONGOK"},{"Key":"TransactionCompletedDateTime","Value":"06.07.2024 22:48:52"},{"Key":"B2CUtilityAccountAvailableFunds","Value":8959269.60},{"Key":"B2CWorkingAccountAvailableFunds","Value":1199371.00},{"Key":"B2CRecipientIsRegisteredCustomer","Value":"Y"},{"Key":"B2CChargesPaidAccountAvailableFunds","Value":-1980.00}]},"ReferenceData":{"ReferenceItem":{"Key":"QueueTimeoutURL","Value":"https://example.com/timeout"}}}}`;

const c2b = (msisdn: unknown, billRef = "INV-0042") =>
  JSON.stringify({ TransactionType: "Pay Bill", TransID: "RKTQDM7W6S", TransTime: "20191122063845", TransAmount: "10", BusinessShortCode: "600638", BillRefNumber: billRef, InvoiceNumber: "", OrgAccountBalance: "49197.00", ThirdPartyTransID: "", MSISDN: msisdn, FirstName: "John" });

describe("a stored callback's phone, masked inside its JSON values", () => {
  it("STK: the PhoneNumber sent as a number becomes the masked string; every other byte stays as received", () => {
    const masked = maskPhonesInJsonText(stkSuccess);
    expect(masked).toBe(stkSuccess.replace('"Value": 254708374149', '"Value": "254******149"'));
    expect(JSON.parse(masked).Body.stkCallback.CallbackMetadata.Item[3]).toEqual({ Name: "PhoneNumber", Value: "254******149" });
    // The amount as sent (1.00), the date (a 14-digit number), the receipt and ids are untouched.
    expect(masked).toContain('"Value": 1.00');
    expect(masked).toContain('"Value": 20191219102115');
  });

  it("B2C: ReceiverPartyPublicName '2547… - NAME' keeps the name, the number masked; balances untouched", () => {
    const masked = maskPhonesInJsonText(b2cResult);
    expect(masked).toBe(b2cResult.replace('"254705912645 - NICHOLAS JOHN SONGOK"', '"254******645 - NICHOLAS JOHN SONGOK"'));
    expect(masked).toContain('"Value":8959269.60');
  });

  it("C2B: a plain MSISDN (string or number) is masked, a hash shows as 'hashed', Daraja's own mask is left", () => {
    expect(JSON.parse(maskPhonesInJsonText(c2b("254708374149"))).MSISDN).toBe("254******149");
    expect(JSON.parse(maskPhonesInJsonText(c2b(254708374149))).MSISDN).toBe("254******149");
    expect(JSON.parse(maskPhonesInJsonText(c2b("0708374149"))).MSISDN).toBe("254******149");
    const hash = "a3f5c2e1b4d6f8e0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718";
    expect(JSON.parse(maskPhonesInJsonText(c2b(hash))).MSISDN).toBe("hashed");
    expect(maskPhonesInJsonText(c2b("2547 ***** 149"))).toBe(c2b("2547 ***** 149"));
    // The customer typed their phone as the account: it is their phone too.
    expect(JSON.parse(maskPhonesInJsonText(c2b("2547 ***** 149", "0708374149"))).BillRefNumber).toBe("254******149");
  });

  it("a reversal's and a status result's party names, spelled in either key", () => {
    const body = JSON.stringify({ Result: { ResultParameters: { ResultParameter: [{ Key: "CreditPartyPublicName", Value: "254712345678 - Jane Doe" }, { Key: "DebitPartyName", Value: "600000 - Shop" }] } } });
    const masked = JSON.parse(maskPhonesInJsonText(body)).Result.ResultParameters.ResultParameter;
    expect(masked).toEqual([{ Key: "CreditPartyPublicName", Value: "254******678 - Jane Doe" }, { Key: "DebitPartyName", Value: "600000 - Shop" }]);
  });

  it("never touches keys, other numbers, or a phone inside a longer value; escapes decode before matching", () => {
    const body = '{"254712345678":1,"Amount":254712345678.5,"Id":"X254712345678","Long":2547123456789,"Escaped":"\\u0032\\u0035\\u0034712345678","Short":"712345678"}';
    const masked = JSON.parse(maskPhonesInJsonText(body));
    expect(masked).toEqual({ "254712345678": 1, Amount: 254712345678.5, Id: "X254712345678", Long: 2547123456789, Escaped: "254******678", Short: "712345678" });
  });

  it("a body that is not JSON (a malformed callback) has the customer's known phones masked wherever they stand", () => {
    const raw = "PhoneNumber=254708374149&Other=2547083741490&Mine=+254708374149, 0708374149;Theirs=254711111111";
    expect(maskStoredCallbackBody(raw, ["254708374149"])).toBe("PhoneNumber=254******149&Other=2547083741490&Mine=254******149, 254******149;Theirs=254711111111");
    // Valid JSON goes through the values, whatever the known phones.
    expect(maskStoredCallbackBody('{"PhoneNumber":254711111111}', [])).toBe('{"PhoneNumber":"254******111"}');
  });
});

describe("a text, and the forms a phone is stored in", () => {
  it("masks the known phones in a body, in their written forms", () => {
    expect(maskKnownPhones("Call 0712345678 or +254712345678 (not 0712345679)", ["254712345678"])).toBe("Call 254******678 or 254******678 (not 0712345679)");
    expect(maskKnownPhones("123456 is your code", [])).toBe("123456 is your code");
  });

  it("lists the account form and the recipient form of each phone", () => {
    expect(storedPhoneForms(["254712345678", "+254712345678", "0712345679"]).sort()).toEqual(["+254712345678", "+254712345679", "254712345678", "254712345679"]);
  });
});

describe("a webhook event's payments", () => {
  const event = (data: unknown) => JSON.stringify({ id: "evt_1", type: "payment_intent.succeeded", created_at: "2026-11-28T10:00:00.000Z", tenant_id: "default", data });

  it("masks the phone of the customer's payments only, wherever they stand", () => {
    const body = event({
      payment_intent: {
        id: "pi_1",
        metadata: { phone: "254712345678" },
        payments: [
          { id: "mine", phone: "254712345678", amount: 10 },
          { id: "theirs", phone: "254712345678", amount: 10 },
        ],
      },
    });
    const masked = JSON.parse(maskPaymentPhonesInEvent(body, new Set(["mine"])));
    expect(masked.data.payment_intent.payments).toEqual([
      { id: "mine", phone: "254******678", amount: 10 },
      { id: "theirs", phone: "254712345678", amount: 10 },
    ]);
    // What the shop wrote (metadata) is the shop's, not a payment of the customer's.
    expect(masked.data.payment_intent.metadata).toEqual({ phone: "254712345678" });
    expect(maskPaymentPhonesInEvent(event({ payment: { id: "mine", phone: "254712345678" } }), new Set(["mine"]))).toBe(event({ payment: { id: "mine", phone: "254******678" } }));
  });

  it("answers the same body when nothing is to mask (masked already, or not theirs)", () => {
    const body = event({ payment: { id: "mine", phone: "254******678" } });
    expect(maskPaymentPhonesInEvent(body, new Set(["mine"]))).toBe(body);
    expect(maskPaymentPhonesInEvent(event({ payment: { id: "other", phone: "254712345678" } }), new Set(["mine"]))).toBe(event({ payment: { id: "other", phone: "254712345678" } }));
  });
});
