import { z } from "zod";
import {
  asNotSent,
  DarajaError,
  darajaErrorFromResponse,
  isInvalidAccessToken,
  isTransactionBeingProcessed,
  readErrorEnvelope,
  refusedByResponseCode,
  unexpectedAnswer,
} from "./errors.js";
import { c2bRegisterResponseSchema, isAcceptedResponseCode } from "./c2b.js";
import { accessTokenAccount, createAccessTokenProvider, type SharedAccessTokens } from "./oauth.js";
import { classifyStkResultCode, normaliseResultCode } from "./result-codes.js";
import { retryWhileNotSent } from "./retry.js";
import { darajaTimestamp, stkPassword } from "./timestamp.js";
import { DEFAULT_RETRY_DELAYS_MS, DEFAULT_TIMEOUT_MS, tokenFetchMs } from "./timing.js";
import { createTransport } from "./transport.js";
import type { DarajaHttpResponse, DarajaTransport } from "./transport.js";
import { ACCOUNT_BALANCE_COMMAND, ACCOUNT_BALANCE_PATH } from "./account-balance.js";
import { DYNAMIC_QR_PATH, parseDynamicQrAnswer } from "./dynamic-qr.js";
import {
  isPullRegistered,
  parsePullQueryAnswer,
  parsePullRegisterAnswer,
  PULL_FOUND,
  PULL_NO_RECORDS,
  PULL_QUERY_PATH,
  PULL_REGISTER_PATH,
  pullDate,
  type PulledTransaction,
  type PullQueryPage,
} from "./pull.js";
import type {
  AccountBalanceRequest,
  B2cPaymentRequest,
  C2bRegisterRequest,
  C2bRegisterResponse,
  C2bRegisterVersion,
  DarajaAcknowledgement,
  DynamicQrRequest,
  DynamicQrResponse,
  PullRegisterRequest,
  PullRegisterResponse,
  PullTransactionsRequest,
  PullTransactionsResult,
  DarajaClient,
  DarajaClientConfig,
  DarajaProtocolConfig,
  StkPushRequest,
  StkPushResponse,
  StkQueryRequest,
  StkQueryResult,
  ReversalRequest,
  TransactionStatusRequest,
} from "./types.js";

const id = z.union([z.string(), z.number()]).transform(String);

const stkPushResponseSchema = z.object({
  MerchantRequestID: id,
  CheckoutRequestID: id,
  ResponseCode: id,
  ResponseDescription: z.string().default(""),
  CustomerMessage: z.string().default(""),
});

const stkQueryResponseSchema = z.object({
  MerchantRequestID: id.optional(),
  CheckoutRequestID: id.optional(),
  ResultCode: z.union([z.string(), z.number()]).optional(),
  ResultDesc: z.string().optional(),
  ResponseDescription: z.string().optional(),
});

// Some Daraja answers spell it OriginatorCoversationID (no "n"; docs/mpesa.md "Reversals"): both are read.
const acknowledgementSchema = z.preprocess(
  (body) => {
    if (typeof body !== "object" || body === null) return body;
    const record = body as Record<string, unknown>;
    return record["OriginatorConversationID"] === undefined && record["OriginatorCoversationID"] !== undefined
      ? { ...record, OriginatorConversationID: record["OriginatorCoversationID"] }
      : body;
  },
  z.object({
    ConversationID: id,
    OriginatorConversationID: id,
    ResponseCode: id,
    ResponseDescription: z.string().default(""),
  }),
);

function requireSetting(value: string | undefined, name: string): string {
  if (value === undefined || value === "") throw new Error(`Daraja client: ${name} is not configured`);
  return value;
}

const isSuccess = (status: number) => status >= 200 && status < 300;

/** Pages a pull reads at most unless told: 5,000 rows at Daraja's (undocumented) 100 a page. */
const DEFAULT_PULL_PAGES = 50;

/**
 * Pull's gateway answers a stale token `401.001 … Invalid Access Token` (other APIs `404.001.03`): refreshed
 * once too, then failed. Only on Pull's paths: elsewhere a 401 "Invalid Access Token" is an app without the
 * product (`401.003.01 … no apiproduct match`), which a new token does not change.
 */
const isPullTokenRefusal = (path: string, response: DarajaHttpResponse) =>
  (path === PULL_QUERY_PATH || path === PULL_REGISTER_PATH) &&
  response.status === 401 &&
  /invalid access token/i.test(readErrorEnvelope(response.body)?.errorMessage ?? "");

/** A Daraja client speaking HTTP to `config.baseUrl`. */
export function createDarajaClient(config: DarajaClientConfig): DarajaClient {
  const timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const transport = createTransport({ baseUrl: config.baseUrl, timeoutMs, ...(config.fetch ? { fetch: config.fetch } : {}) });
  const store = config.tokenStore;
  const shared: SharedAccessTokens | undefined = store && {
    store,
    account: accessTokenAccount(config.baseUrl, config.consumerKey),
    lockMs: tokenFetchMs({ timeoutMs, retryDelaysMs: config.retryDelaysMs }),
    onStoreError(error) {
      const reason = error instanceof Error ? error.message : String(error);
      config.logger?.warn({ reason }, "the shared Daraja token store failed: this instance keeps its own token meanwhile");
    },
  };
  return createDarajaClientOver(transport, config, shared);
}

/**
 * A Daraja client whose requests go through `transport`: the same tokens, retries and reading of the
 * answers whatever carries them (HTTP, or the simulated Daraja answering in-process for test mode).
 */
export function createDarajaClientOver(
  transport: DarajaTransport,
  config: DarajaProtocolConfig,
  sharedTokens?: SharedAccessTokens,
): DarajaClient {
  const now = config.now ?? (() => new Date());
  const retryDelaysMs = config.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
  const tokens = createAccessTokenProvider({
    transport,
    consumerKey: config.consumerKey,
    consumerSecret: config.consumerSecret,
    now,
    retryDelaysMs,
    shared: sharedTokens,
  });
  const log = config.logger;
  const reversalShortcode = config.partyB ?? config.shortcode;

  /** Without a token the request itself is never sent, whatever went wrong with the token. */
  async function tokenOrNotSent(): Promise<string> {
    try {
      return await tokens.get();
    } catch (error) {
      throw error instanceof DarajaError ? asNotSent(error) : error;
    }
  }

  /**
   * POSTs with the cached token; on `404.001.03` (token replaced or expired early) refreshes once and
   * retries once: Daraja refused the first request at its gateway, so the retry cannot be a double.
   */
  async function post(path: string, json: unknown): Promise<DarajaHttpResponse> {
    for (let attempt = 1; ; attempt++) {
      const token = await tokenOrNotSent();
      const response = await transport.send({
        method: "POST",
        path,
        headers: { Authorization: `Bearer ${token}` },
        json,
      });
      const staleToken = isInvalidAccessToken(readErrorEnvelope(response.body)) || isPullTokenRefusal(path, response);
      if (attempt === 1 && staleToken) {
        log?.debug({ path }, "Daraja rejected the access token; refreshing once");
        await tokens.invalidate(token);
        continue;
      }
      return response;
    }
  }

  function fail(path: string, error: DarajaError): never {
    log?.warn(
      { path, kind: error.kind, reason: error.reason, httpStatus: error.httpStatus, errorCode: error.errorCode, errorMessage: error.errorMessage, requestId: error.requestId },
      "Daraja request failed",
    );
    throw error;
  }

  async function postOrFail(path: string, json: unknown): Promise<DarajaHttpResponse> {
    try {
      return await post(path, json);
    } catch (error) {
      if (error instanceof DarajaError) fail(path, error);
      throw error;
    }
  }

  /** The API operator of Transaction Status and Reversal requests. */
  function initiator() {
    return { Initiator: requireSetting(config.initiatorName, "initiatorName"), SecurityCredential: requireSetting(config.securityCredential, "securityCredential") };
  }

  function stkCredentials() {
    const timestamp = darajaTimestamp(now());
    return { BusinessShortCode: config.shortcode, Password: stkPassword(config.shortcode, config.passkey, timestamp), Timestamp: timestamp };
  }

  /** The body of an answer that accepted the request; any other answer fails with its classification. */
  function acceptedBody<T extends { ResponseCode: string; ResponseDescription: string }>(
    path: string,
    response: DarajaHttpResponse,
    schema: z.ZodType<T>,
    what: string,
  ): T {
    if (!isSuccess(response.status)) fail(path, darajaErrorFromResponse(response.status, response.body));
    const parsed = schema.safeParse(response.body);
    if (!parsed.success) fail(path, unexpectedAnswer(response.status, what));
    const body = parsed.data;
    if (body.ResponseCode !== "0") fail(path, refusedByResponseCode(response.status, body.ResponseCode, body.ResponseDescription));
    return body;
  }

  function acknowledgement(path: string, response: DarajaHttpResponse): DarajaAcknowledgement {
    const body = acceptedBody(path, response, acknowledgementSchema, path);
    return {
      conversationId: body.ConversationID,
      originatorConversationId: body.OriginatorConversationID,
      responseCode: body.ResponseCode,
      responseDescription: body.ResponseDescription,
    };
  }

  /** The answer of an app whose Daraja product is the other register URL version (docs/mpesa.md#c2b). */
  const isProductMismatch = (response: DarajaHttpResponse) => /no apiproduct match/i.test(readErrorEnvelope(response.body)?.errorMessage ?? "");

  /** One page of a pull; 1000 and 1001 are answers, any other code a refusal. */
  async function pullPage(shortCode: string, from: string, to: string, offset: number): Promise<PullQueryPage> {
    const body = { ShortCode: shortCode, StartDate: from, EndDate: to, OffSetValue: String(offset) };
    const response = await post(PULL_QUERY_PATH, body);
    if (!isSuccess(response.status)) throw darajaErrorFromResponse(response.status, response.body);
    const parsed = parsePullQueryAnswer(response.body);
    if (!parsed.ok) throw unexpectedAnswer(response.status, "Pull Transactions query");
    const page = parsed.value;
    if (page.responseCode !== PULL_FOUND && page.responseCode !== PULL_NO_RECORDS) {
      throw refusedByResponseCode(response.status, page.responseCode, page.responseMessage);
    }
    return page;
  }

  /**
   * Walks the window's pages: from offset 0; by page index when Daraja says `TotalPages`, else by the
   * rows received (its OffSetValue is described both ways). Stops on "no records", an empty page, a page
   * with nothing new (a Daraja that ignores the offset), or `maxPages`.
   */
  async function pullTransactions(request: PullTransactionsRequest): Promise<PullTransactionsResult> {
    const maxPages = request.maxPages ?? DEFAULT_PULL_PAGES;
    // Daraja reads whole seconds and includes the end: the end rounded up keeps its last second's receipts.
    const from = pullDate(request.from);
    const to = pullDate(new Date(Math.ceil(request.to.getTime() / 1000) * 1000));
    const seen = new Set<string>();
    const transactions: PulledTransaction[] = [];
    const unreadable: PullTransactionsResult["unreadable"] = [];
    let offset = 0;
    let pages = 0;
    let responseMessage = "";
    for (;;) {
      if (pages === maxPages) return { transactions, noRecords: false, responseMessage, pages, unreadable, truncated: true };
      const attempt = () => pullPage(request.shortCode, from, to, offset);
      const page = await retryWhileNotSent(attempt, retryDelaysMs).catch((error: unknown) => {
        if (error instanceof DarajaError) fail(PULL_QUERY_PATH, error);
        throw error;
      });
      pages += 1;
      responseMessage = page.responseMessage;
      if (page.responseCode === PULL_NO_RECORDS) {
        return { transactions, noRecords: pages === 1, responseMessage, pages, unreadable, truncated: false };
      }
      const fresh = page.transactions.filter((row) => !seen.has(row.transactionId));
      for (const row of fresh) {
        seen.add(row.transactionId);
        transactions.push(row);
      }
      unreadable.push(...page.unreadable);
      const rows = page.transactions.length + page.unreadable.length;
      const done = page.totalPages !== null ? pages >= page.totalPages : rows === 0 || fresh.length === 0;
      if (done) return { transactions, noRecords: false, responseMessage, pages, unreadable, truncated: false };
      offset = page.totalPages !== null ? pages : offset + rows;
    }
  }

  return {
    transactionType: config.transactionType,

    // Safe to repeat: registering a short code again answers 1001 "already registered".
    async pullRegister(request: PullRegisterRequest): Promise<PullRegisterResponse> {
      const response = await postOrFail(PULL_REGISTER_PATH, {
        ShortCode: request.shortCode,
        RequestType: "Pull",
        NominatedNumber: request.nominatedNumber,
        CallBackURL: request.callbackUrl,
      });
      if (!isSuccess(response.status)) {
        fail(PULL_REGISTER_PATH, darajaErrorFromResponse(response.status, response.body));
      }
      const parsed = parsePullRegisterAnswer(response.body);
      if (!parsed.ok) fail(PULL_REGISTER_PATH, unexpectedAnswer(response.status, "Pull Transactions register"));
      const answer = parsed.value;
      if (!isPullRegistered(answer.status)) {
        fail(PULL_REGISTER_PATH, refusedByResponseCode(response.status, answer.status, answer.description));
      }
      return { status: answer.status, description: answer.description, responseRefId: answer.responseRefId };
    },

    pullTransactions,

    // Safe to repeat: a QR code moves no money (the payment it leads to is the customer's own).
    async dynamicQr(request: DynamicQrRequest): Promise<DynamicQrResponse> {
      const response = await postOrFail(DYNAMIC_QR_PATH, {
        MerchantName: request.merchantName,
        RefNo: request.refNo,
        Amount: request.amount,
        TrxCode: request.trxCode,
        CPI: request.cpi,
        // Daraja reads the size as a string.
        Size: String(request.size),
      });
      if (!isSuccess(response.status) || readErrorEnvelope(response.body)) {
        fail(DYNAMIC_QR_PATH, darajaErrorFromResponse(response.status, response.body));
      }
      const parsed = parseDynamicQrAnswer(response.body);
      if (!parsed.ok) fail(DYNAMIC_QR_PATH, unexpectedAnswer(response.status, "Dynamic QR"));
      const { qrCode, responseCode, responseDescription } = parsed.value;
      return { qrCode, responseCode, responseDescription };
    },

    // Safe to repeat: registration has no money effect and a refused version registered nothing.
    async registerC2bUrls(request: C2bRegisterRequest): Promise<C2bRegisterResponse> {
      const first: C2bRegisterVersion = config.c2bRegisterVersion ?? "v2";
      const body = { ShortCode: request.shortCode, ResponseType: request.responseType, ConfirmationURL: request.confirmationUrl, ValidationURL: request.validationUrl };
      let version = first;
      let path = `/mpesa/c2b/${version}/registerurl`;
      let response = await postOrFail(path, body);
      if (isProductMismatch(response)) {
        version = first === "v2" ? "v1" : "v2";
        log?.debug({ path }, "Daraja: the app has the other C2B register version; trying it once");
        path = `/mpesa/c2b/${version}/registerurl`;
        response = await postOrFail(path, body);
      }
      if (!isSuccess(response.status)) fail(path, darajaErrorFromResponse(response.status, response.body));
      const parsed = c2bRegisterResponseSchema.safeParse(response.body);
      if (!parsed.success) fail(path, unexpectedAnswer(response.status, "C2B register URL"));
      const answer = parsed.data;
      if (!isAcceptedResponseCode(answer.responseCode)) fail(path, refusedByResponseCode(response.status, answer.responseCode, answer.responseDescription));
      return { ...answer, version };
    },

    // Never retried automatically: a repeat after Daraja saw the first one is a second prompt.
    async stkPush(request: StkPushRequest): Promise<StkPushResponse> {
      const path = "/mpesa/stkpush/v1/processrequest";
      const response = await postOrFail(path, {
        ...stkCredentials(),
        TransactionType: config.transactionType,
        Amount: request.amount,
        PartyA: request.phone,
        PartyB: config.partyB ?? config.shortcode,
        PhoneNumber: request.phone,
        CallBackURL: request.callbackUrl,
        AccountReference: request.accountReference,
        TransactionDesc: request.transactionDesc,
      });
      const body = acceptedBody(path, response, stkPushResponseSchema, "STK push");
      return {
        merchantRequestId: body.MerchantRequestID,
        checkoutRequestId: body.CheckoutRequestID,
        responseCode: body.ResponseCode,
        responseDescription: body.ResponseDescription,
        customerMessage: body.CustomerMessage,
      };
    },

    async stkQuery({ checkoutRequestId }: StkQueryRequest): Promise<StkQueryResult> {
      const path = "/mpesa/stkpushquery/v1/query";
      const attempt = async (): Promise<StkQueryResult> => {
        const response = await post(path, { ...stkCredentials(), CheckoutRequestID: checkoutRequestId });
        if (!isSuccess(response.status)) {
          const envelope = readErrorEnvelope(response.body);
          if (isTransactionBeingProcessed(envelope)) {
            return { status: "PENDING", resultCode: null, resultDesc: envelope?.errorMessage ?? "", merchantRequestId: null, checkoutRequestId };
          }
          throw darajaErrorFromResponse(response.status, response.body);
        }
        const parsed = stkQueryResponseSchema.safeParse(response.body);
        if (!parsed.success) throw unexpectedAnswer(response.status, "STK query");
        const body = parsed.data;
        const resultCode = normaliseResultCode(body.ResultCode);
        return {
          // No ResultCode yet means Daraja accepted the query but the prompt has not ended.
          status: resultCode === null ? "PENDING" : classifyStkResultCode(resultCode),
          resultCode,
          resultDesc: body.ResultDesc ?? body.ResponseDescription ?? "",
          merchantRequestId: body.MerchantRequestID ?? null,
          checkoutRequestId: body.CheckoutRequestID ?? checkoutRequestId,
        };
      };
      try {
        return await retryWhileNotSent(attempt, retryDelaysMs);
      } catch (error) {
        if (error instanceof DarajaError) fail(path, error);
        throw error;
      }
    },

    // Never retried automatically: the OriginatorConversationID guards against doubles only if the
    // caller re-sends it deliberately after checking the outcome.
    async b2cPayment(request: B2cPaymentRequest): Promise<DarajaAcknowledgement> {
      const path = "/mpesa/b2c/v3/paymentrequest";
      const response = await postOrFail(path, {
        OriginatorConversationID: request.originatorConversationId,
        InitiatorName: requireSetting(config.initiatorName, "initiatorName"),
        SecurityCredential: requireSetting(config.securityCredential, "securityCredential"),
        CommandID: request.commandId,
        Amount: request.amount,
        PartyA: requireSetting(config.b2cShortcode, "b2cShortcode"),
        PartyB: request.phone,
        Remarks: request.remarks,
        QueueTimeOutURL: request.queueTimeoutUrl,
        ResultURL: request.resultUrl,
        // Daraja's own spelling in the v3 documentation.
        Occassion: request.occasion ?? "",
      });
      return acknowledgement(path, response);
    },

    async transactionStatus(request: TransactionStatusRequest): Promise<DarajaAcknowledgement> {
      if (!request.transactionId && !request.originatorConversationId) {
        throw new TypeError("transactionStatus needs a transactionId or an originatorConversationId");
      }
      const path = "/mpesa/transactionstatus/v1/query";
      const response = await postOrFail(path, {
        ...initiator(),
        CommandID: "TransactionStatusQuery",
        ...(request.transactionId ? { TransactionID: request.transactionId } : {}),
        ...(request.originatorConversationId ? { OriginatorConversationID: request.originatorConversationId } : {}),
        PartyA: request.partyA ?? requireSetting(config.b2cShortcode, "b2cShortcode"),
        IdentifierType: "4",
        ResultURL: request.resultUrl,
        QueueTimeOutURL: request.queueTimeoutUrl,
        Remarks: request.remarks,
        Occasion: request.occasion ?? "",
      });
      return acknowledgement(path, response);
    },

    reversalShortcode,

    b2cShortcode: config.b2cShortcode,

    // Never retried automatically: a second request for the same receipt is a second reversal attempt.
    async reversal(request: ReversalRequest): Promise<DarajaAcknowledgement> {
      const path = "/mpesa/reversal/v1/request";
      const response = await postOrFail(path, {
        ...initiator(),
        CommandID: "TransactionReversal",
        TransactionID: request.transactionId,
        Amount: request.amount,
        ReceiverParty: reversalShortcode,
        // Daraja's own spelling; the correct English key is refused ("Invalid RecieverIdentifierType").
        RecieverIdentifierType: "11",
        ResultURL: request.resultUrl,
        QueueTimeOutURL: request.queueTimeoutUrl,
        Remarks: request.remarks,
        Occasion: request.occasion ?? "",
      });
      return acknowledgement(path, response);
    },

    // Not retried automatically, like every request that names a callback: a repeat is a second result.
    async accountBalance(request: AccountBalanceRequest): Promise<DarajaAcknowledgement> {
      const response = await postOrFail(ACCOUNT_BALANCE_PATH, {
        ...initiator(),
        CommandID: ACCOUNT_BALANCE_COMMAND,
        PartyA: requireSetting(config.b2cShortcode, "b2cShortcode"),
        // 4: a short code.
        IdentifierType: "4",
        Remarks: request.remarks,
        // Daraja's JSON spelling (its table writes QueueTimeoutURL).
        QueueTimeOutURL: request.queueTimeoutUrl,
        ResultURL: request.resultUrl,
      });
      return acknowledgement(ACCOUNT_BALANCE_PATH, response);
    },
  };
}
