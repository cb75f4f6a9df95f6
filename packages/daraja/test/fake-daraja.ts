import Fastify from "fastify";
import type { FastifyReply, FastifyRequest } from "fastify";

// A strict stand-in for Daraja, written independently of the client: it re-derives the Password
// itself and rejects anything Daraja would reject, so a passing client test means real fields.

export const SANDBOX = {
  shortcode: "174379",
  passkey: "bfb279f9aa9bdbcf158e97dd71a467cd2e0c893059b10f78e6b72ada1ed2c919",
  consumerKey: "fake-key",
  consumerSecret: "fake-secret",
  b2cShortcode: "600992",
  initiatorName: "testapi",
  securityCredential: "c2VjcmV0LWNyZWRlbnRpYWw=",
} as const;

type Body = Record<string, unknown>;
export type Override = (body: Body, request: FastifyRequest) => { status: number; body: unknown } | undefined;

export interface FakeDarajaOptions {
  expiresIn?: number | string;
  tokenDelayMs?: number;
}

export interface FakeDaraja {
  url: string;
  tokenRequests: number;
  calls: Record<string, Body[]>;
  rejected: { path: string; message: string }[];
  /** Next answers per path, consumed in order; when empty the default success answer is used. */
  script: Record<string, Override[]>;
  delayMs: Record<string, number>;
  /** Simulates another process asking for a token: the current one stops working. */
  rotateToken(): void;
  rejectEveryToken: boolean;
  close(): Promise<void>;
}

const envelope = (errorCode: string, errorMessage: string) => ({ requestId: "fake-1", errorCode, errorMessage });
const MSISDN = /^254[17]\d{8}$/;

export async function startFakeDaraja(options: FakeDarajaOptions = {}): Promise<FakeDaraja> {
  const app = Fastify({ logger: false, forceCloseConnections: true });
  let serial = 0;
  let currentToken: string | null = null;

  const fake: FakeDaraja = {
    url: "",
    tokenRequests: 0,
    calls: {},
    rejected: [],
    script: {},
    delayMs: {},
    rejectEveryToken: false,
    rotateToken() {
      currentToken = `rotated-${++serial}`;
    },
    close: () => app.close(),
  };

  app.get("/oauth/v1/generate", async (request, reply) => {
    fake.tokenRequests++;
    const expected = `Basic ${Buffer.from(`${SANDBOX.consumerKey}:${SANDBOX.consumerSecret}`).toString("base64")}`;
    const query = request.query as Record<string, string>;
    if (query["grant_type"] !== "client_credentials") return reply.code(400).send(envelope("400.008.02", "Invalid grant type passed"));
    if (request.headers.authorization !== expected) return reply.code(400).send("");
    if (options.tokenDelayMs) await new Promise((resolve) => setTimeout(resolve, options.tokenDelayMs));
    currentToken = `token-${++serial}`;
    return { access_token: currentToken, expires_in: options.expiresIn ?? "3599" };
  });

  function reject(reply: FastifyReply, path: string, status: number, code: string, message: string) {
    fake.rejected.push({ path, message });
    return reply.code(status).send(envelope(code, message));
  }

  function route(path: string, validate: (body: Body) => string | null, success: (body: Body, reply: FastifyReply) => unknown) {
    app.post(path, async (request, reply) => {
      const body = (request.body ?? {}) as Body;
      (fake.calls[path] ??= []).push(body);
      const delay = fake.delayMs[path];
      if (delay) await new Promise((resolve) => setTimeout(resolve, delay));
      if (fake.rejectEveryToken || request.headers.authorization !== `Bearer ${currentToken}`) {
        return reject(reply, path, 404, "404.001.03", "Invalid Access Token");
      }
      if (!String(request.headers["content-type"]).startsWith("application/json")) {
        return reject(reply, path, 400, "400.002.02", "Bad Request - Invalid BusinessShortCode");
      }
      const invalid = validate(body);
      if (invalid) return reject(reply, path, invalid.includes("Wrong credentials") ? 500 : 400, invalid.includes("Wrong credentials") ? "500.001.1001" : "400.002.02", invalid);
      const scripted = fake.script[path]?.shift()?.(body, request);
      if (scripted) return reply.code(scripted.status).send(scripted.body);
      return success(body, reply);
    });
  }

  const present = (body: Body, fields: string[]) => fields.find((field) => body[field] === undefined || body[field] === "");

  function checkStkCredentials(body: Body): string | null {
    const timestamp = String(body["Timestamp"] ?? "");
    if (!/^\d{14}$/.test(timestamp)) return "Bad Request - Invalid Timestamp";
    if (String(body["BusinessShortCode"]) !== SANDBOX.shortcode) return "Bad Request - Invalid BusinessShortCode";
    const expected = Buffer.from(SANDBOX.shortcode + SANDBOX.passkey + timestamp).toString("base64");
    return body["Password"] === expected ? null : "[MerchantValidate] - Wrong credentials";
  }

  route(
    "/mpesa/stkpush/v1/processrequest",
    (body) => {
      const missing = present(body, ["BusinessShortCode", "Password", "Timestamp", "TransactionType", "Amount", "PartyA", "PartyB", "PhoneNumber", "CallBackURL", "AccountReference"]);
      if (missing) return `Bad Request - Invalid ${missing}`;
      const credentials = checkStkCredentials(body);
      if (credentials) return credentials;
      if (!["CustomerPayBillOnline", "CustomerBuyGoodsOnline"].includes(String(body["TransactionType"]))) return "Bad Request - Invalid TransactionType";
      if (!Number.isInteger(Number(body["Amount"])) || Number(body["Amount"]) < 1) return "Bad Request - Invalid Amount";
      if (!MSISDN.test(String(body["PhoneNumber"]))) return "Bad Request - Invalid PhoneNumber";
      if (!MSISDN.test(String(body["PartyA"]))) return "Bad Request - Invalid PartyA";
      if (String(body["AccountReference"]).length > 12) return "Bad Request - Invalid AccountReference";
      if (String(body["TransactionDesc"] ?? "").length > 13) return "Bad Request - Invalid TransactionDesc";
      if (!/^https?:\/\//.test(String(body["CallBackURL"]))) return "Bad Request - Invalid CallBackURL";
      return null;
    },
    () => ({
      MerchantRequestID: `fake-merchant-${serial}`,
      CheckoutRequestID: `ws_CO_fake_${serial}`,
      ResponseCode: "0",
      ResponseDescription: "Success. Request accepted for processing",
      CustomerMessage: "Success. Request accepted for processing",
    }),
  );

  route(
    "/mpesa/stkpushquery/v1/query",
    (body) => {
      const missing = present(body, ["BusinessShortCode", "Password", "Timestamp", "CheckoutRequestID"]);
      return missing ? `Bad Request - Invalid ${missing}` : checkStkCredentials(body);
    },
    (body) => ({
      ResponseCode: "0",
      ResponseDescription: "The service request has been accepted successsfully",
      MerchantRequestID: "fake-merchant",
      CheckoutRequestID: body["CheckoutRequestID"],
      ResultCode: "0",
      ResultDesc: "The service request is processed successfully.",
    }),
  );

  const seenOriginatorIds = new Set<string>();
  const initiatorChecks = (body: Body, initiatorField: string, partyA: readonly string[] = [SANDBOX.b2cShortcode]): string | null => {
    if (body[initiatorField] !== SANDBOX.initiatorName) return `Bad Request - Invalid ${initiatorField}`;
    if (body["SecurityCredential"] !== SANDBOX.securityCredential) return "Bad Request - Invalid SecurityCredential";
    if (!partyA.includes(String(body["PartyA"]))) return "Bad Request - Invalid PartyA";
    for (const url of ["ResultURL", "QueueTimeOutURL"]) {
      if (!/^https?:\/\//.test(String(body[url] ?? ""))) return `Bad Request - Invalid ${url}`;
    }
    return null;
  };

  // C2B register URL, both path versions (docs/mpesa.md#c2b): the portal's answer, typo included.
  for (const version of ["v1", "v2"]) {
    route(
      `/mpesa/c2b/${version}/registerurl`,
      (body) => {
        const missing = present(body, ["ShortCode", "ResponseType", "ConfirmationURL", "ValidationURL"]);
        if (missing) return `Bad Request - Invalid ${missing}`;
        if (!["Completed", "Cancelled"].includes(String(body["ResponseType"]))) return "Bad Request - Invalid ResponseType";
        return null;
      },
      () => ({ OriginatorCoversationID: "6e86-45dd-91ac-fd5d4178ab523408729", ResponseCode: "0", ResponseDescription: "Success" }),
    );
  }

  route(
    "/mpesa/b2c/v3/paymentrequest",
    (body) => {
      const fields = ["OriginatorConversationID", "InitiatorName", "SecurityCredential", "CommandID", "Amount", "PartyA", "PartyB", "Remarks", "QueueTimeOutURL", "ResultURL"];
      const missing = present(body, fields);
      if (missing) return `Bad Request - Invalid ${missing}`;
      if (!("Occassion" in body)) return "Bad Request - Invalid Occassion";
      const initiator = initiatorChecks(body, "InitiatorName");
      if (initiator) return initiator;
      if (!["BusinessPayment", "SalaryPayment", "PromotionPayment"].includes(String(body["CommandID"]))) return "Bad Request - Invalid CommandID";
      if (!MSISDN.test(String(body["PartyB"]))) return "Bad Request - Invalid PartyB";
      return null;
    },
    (body, reply) => {
      const originator = String(body["OriginatorConversationID"]);
      if (seenOriginatorIds.has(originator)) return reply.code(500).send(envelope("500.002.1001", "Duplicate OriginatorConversationID."));
      seenOriginatorIds.add(originator);
      return { ConversationID: "AG_20240706_fake", OriginatorConversationID: originator, ResponseCode: "0", ResponseDescription: "Accept the service request successfully." };
    },
  );

  route(
    "/mpesa/transactionstatus/v1/query",
    (body) => {
      const missing = present(body, ["Initiator", "SecurityCredential", "CommandID", "PartyA", "IdentifierType", "ResultURL", "QueueTimeOutURL", "Remarks"]);
      if (missing) return `Bad Request - Invalid ${missing}`;
      if (body["CommandID"] !== "TransactionStatusQuery") return "Bad Request - Invalid CommandID";
      if (String(body["IdentifierType"]) !== "4") return "Bad Request - Invalid IdentifierType";
      if (!body["TransactionID"] && !body["OriginatorConversationID"]) return "Bad Request - Invalid TransactionID";
      // A payout is queried on the B2C short code, a reversal on the paybill it returned money from.
      return initiatorChecks(body, "Initiator", [SANDBOX.b2cShortcode, SANDBOX.shortcode]);
    },
    () => ({ ConversationID: "AG_20240706_query", OriginatorConversationID: "fake-query-1", ResponseCode: "0", ResponseDescription: "Accept the service request successfully." }),
  );

  // The Reversal request as the portal documents it (docs/mpesa.md "Reversals"): the misspelled
  // RecieverIdentifierType is the key Daraja reads; the correct English one is refused.
  route(
    "/mpesa/reversal/v1/request",
    (body) => {
      const missing = present(body, ["Initiator", "SecurityCredential", "CommandID", "TransactionID", "Amount", "ReceiverParty", "RecieverIdentifierType", "ResultURL", "QueueTimeOutURL", "Remarks"]);
      if (missing) return `Bad Request - Invalid ${missing}`;
      if ("ReceiverIdentifierType" in body) return "Bad Request - Invalid RecieverIdentifierType";
      if (body["CommandID"] !== "TransactionReversal") return "Bad Request - Invalid CommandID";
      if (String(body["RecieverIdentifierType"]) !== "11") return "Bad Request - Invalid RecieverIdentifierType";
      if (body["Initiator"] !== SANDBOX.initiatorName) return "Bad Request - Invalid Initiator";
      if (body["SecurityCredential"] !== SANDBOX.securityCredential) return "Bad Request - Invalid SecurityCredential";
      const remarks = String(body["Remarks"]);
      if (remarks.length < 2 || remarks.length > 100) return "Bad Request - Invalid Remarks";
      return null;
    },
    // The portal's synchronous answer.
    () => ({
      OriginatorConversationID: "f1e2-4b95-a71d-b30d3cdbb7a7735297",
      ConversationID: "AG_20210706_20106e9209f64bebd05b",
      ResponseCode: "0",
      ResponseDescription: "Accept the service request successfully.",
    }),
  );

  // Account Balance as the portal documents it: the organisation's own short code, IdentifierType 4.
  route(
    "/mpesa/accountbalance/v1/query",
    (body) => {
      const fields = ["Initiator", "SecurityCredential", "CommandID", "PartyA", "IdentifierType", "Remarks"];
      const missing = present(body, [...fields, "QueueTimeOutURL", "ResultURL"]);
      if (missing) return `Bad Request - Invalid ${missing}`;
      if (body["CommandID"] !== "AccountBalance") return "Bad Request - Invalid CommandID";
      if (String(body["IdentifierType"]) !== "4") return "Bad Request - Invalid IdentifierType";
      if (String(body["Remarks"]).length > 100) return "Bad Request - Invalid Remarks";
      return initiatorChecks(body, "Initiator");
    },
    // The portal's synchronous answer.
    () => ({
      OriginatorConversationID: "515-5258779-3",
      ConversationID: "AG_20200123_0000417fed8ed666e976",
      ResponseCode: "0",
      ResponseDescription: "Accept the service request successfully",
    }),
  );

  fake.url = await app.listen({ host: "127.0.0.1", port: 0 });
  return fake;
}
