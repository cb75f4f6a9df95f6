import type { AccessTokenStore } from "./oauth.js";
import type { QrTransactionCode } from "./dynamic-qr.js";
import type { PulledTransaction } from "./pull.js";
import type { StkStatus } from "./result-codes.js";

export type DarajaTransactionType = "CustomerPayBillOnline" | "CustomerBuyGoodsOnline";
export type B2cCommandId = "BusinessPayment" | "SalaryPayment" | "PromotionPayment";

/** pino-style (Fastify's logger fits). Secrets (tokens, passwords, credentials) are never logged. */
export interface DarajaLogger {
  debug(details: object, message: string): void;
  warn(details: object, message: string): void;
}

export interface DarajaClientConfig {
  /** `https://sandbox.safaricom.co.ke`, `https://api.safaricom.co.ke`, or the simulator's URL. */
  baseUrl: string;
  consumerKey: string;
  consumerSecret: string;
  /** STK BusinessShortCode (for tills: the store/HO number). */
  shortcode: string;
  passkey: string;
  transactionType: DarajaTransactionType;
  /** STK PartyB: the till number for CustomerBuyGoodsOnline. Default: shortcode. */
  partyB?: string;
  /** B2C and Transaction Status PartyA. Required for b2cPayment / transactionStatus. */
  b2cShortcode?: string;
  initiatorName?: string;
  /** Already encrypted (see securityCredentialFromCertificate). */
  securityCredential?: string;
  /** Per-request timeout. Default 10000. */
  timeoutMs?: number;
  now?: () => Date;
  logger?: DarajaLogger;
  /** Delays between attempts of calls that are safe to repeat (OAuth, STK query). Default [250, 750]. */
  retryDelaysMs?: readonly number[];
  fetch?: typeof globalThis.fetch;
  /** C2B register URL path version; default "v2" (the other one is tried once when the app lacks the product). */
  c2bRegisterVersion?: C2bRegisterVersion;
  /** Where the processes of the deployment share the access token; default: this client's memory. */
  tokenStore?: AccessTokenStore | undefined;
}

/** What a client needs besides the way to Daraja (createDarajaClientOver takes the way itself). */
export type DarajaProtocolConfig = Omit<DarajaClientConfig, "baseUrl" | "timeoutMs" | "fetch" | "tokenStore">;

export interface StkPushRequest {
  /** 12-digit MSISDN (see normaliseKenyanPhone). Sent as PartyA and PhoneNumber. */
  phone: string;
  /** Whole shillings. */
  amount: number;
  /** ≤ 12 characters. */
  accountReference: string;
  /** ≤ 13 characters. */
  transactionDesc: string;
  callbackUrl: string;
}

export interface StkPushResponse {
  merchantRequestId: string;
  checkoutRequestId: string;
  responseCode: string;
  responseDescription: string;
  customerMessage: string;
}

export interface StkQueryRequest {
  checkoutRequestId: string;
}

export interface StkQueryResult {
  status: StkStatus;
  /** null while pending in the HTTP 500 form. */
  resultCode: string | null;
  resultDesc: string;
  merchantRequestId: string | null;
  checkoutRequestId: string;
}

export interface B2cPaymentRequest {
  /** Generated and stored by the caller before the call; Daraja rejects a repeat. */
  originatorConversationId: string;
  commandId: B2cCommandId;
  amount: number;
  phone: string;
  remarks: string;
  occasion?: string;
  resultUrl: string;
  queueTimeoutUrl: string;
}

export interface DarajaAcknowledgement {
  conversationId: string;
  originatorConversationId: string;
  responseCode: string;
  responseDescription: string;
}

export interface TransactionStatusRequest {
  /** M-Pesa receipt of the transaction; give this or originatorConversationId. */
  transactionId?: string;
  originatorConversationId?: string;
  /** The short code whose transaction is queried. Default: b2cShortcode (a payout's); a reversal's is the paybill or till (see reversal). */
  partyA?: string;
  resultUrl: string;
  queueTimeoutUrl: string;
  remarks: string;
  occasion?: string;
}

export interface ReversalRequest {
  /** The M-Pesa receipt of the payment being reversed (Daraja's TransactionID). */
  transactionId: string;
  /** Whole shillings: the amount paid. */
  amount: number;
  resultUrl: string;
  queueTimeoutUrl: string;
  /** 2-100 characters. */
  remarks: string;
  occasion?: string;
}

export interface AccountBalanceRequest {
  resultUrl: string;
  queueTimeoutUrl: string;
  /** 1-100 characters. */
  remarks: string;
}

export type C2bRegisterVersion = "v1" | "v2";

export interface C2bRegisterRequest {
  shortCode: string;
  /** What M-Pesa does when the validation URL is unreachable or late. */
  responseType: "Completed" | "Cancelled";
  confirmationUrl: string;
  validationUrl: string;
}

export interface C2bRegisterResponse {
  /** Daraja's key is spelled `OriginatorCoversationID`; either spelling is read. */
  originatorConversationId: string;
  responseCode: string;
  responseDescription: string;
  /** The path version Daraja accepted. */
  version: C2bRegisterVersion;
}

export interface PullRegisterRequest {
  /** The paybill or till whose receipts are to be pulled. */
  shortCode: string;
  /** `2547…`/`2541…`: the number on the short code's KYC in the organisation portal. */
  nominatedNumber: string;
  /** Daraja does not document what, if anything, it posts here. */
  callbackUrl: string;
}

export interface PullRegisterResponse {
  /** "1000" registered now; "1001" registered before (also success). */
  status: string;
  description: string;
  responseRefId: string | null;
}

export interface PullTransactionsRequest {
  shortCode: string;
  /** The window, at most 48 hours back (Daraja keeps no more); sent as Nairobi time. */
  from: Date;
  to: Date;
  /** Pages read at most; what lies beyond is left for the next window (`truncated`). Default 50. */
  maxPages?: number;
}

export interface PullTransactionsResult {
  /** Every row of every page, each receipt once, in Daraja's order. */
  transactions: PulledTransaction[];
  /** Daraja answered 1001 to the first page: no records, or a short code it cannot name (it says which it is not). */
  noRecords: boolean;
  /** Daraja's ResponseMessage of the last page read. */
  responseMessage: string;
  /** Pages asked for. */
  pages: number;
  /** Rows that did not read (logged by the caller; never credited). */
  unreadable: { row: unknown; error: string }[];
  /** `maxPages` was reached with more to come. */
  truncated: boolean;
}

export interface DynamicQrRequest {
  /** Shown to the payer. */
  merchantName: string;
  /** For a paybill (PB): the account number the payment carries. */
  refNo: string;
  /** Whole shillings. */
  amount: number;
  trxCode: QrTransactionCode;
  /** Credit Party Identifier: the paybill, till or phone paid. */
  cpi: string;
  /** The image's side in pixels (sent as a string). */
  size: number;
}

export interface DynamicQrResponse {
  /** Base64 PNG. */
  qrCode: string;
  responseCode: string;
  responseDescription: string;
}

export interface DarajaClient {
  /** C2B v2 (or v1) register URL: where M-Pesa sends the validation and confirmation of paybill/till payments. */
  registerC2bUrls(request: C2bRegisterRequest): Promise<C2bRegisterResponse>;
  stkPush(request: StkPushRequest): Promise<StkPushResponse>;
  stkQuery(request: StkQueryRequest): Promise<StkQueryResult>;
  b2cPayment(request: B2cPaymentRequest): Promise<DarajaAcknowledgement>;
  transactionStatus(request: TransactionStatusRequest): Promise<DarajaAcknowledgement>;
  /** Never retried automatically; the acknowledgement's ids are Daraja's (the request carries none). */
  reversal(request: ReversalRequest): Promise<DarajaAcknowledgement>;
  /** The short code a reversal returns money from (ReceiverParty): the till for Buy Goods, else the paybill. */
  readonly reversalShortcode: string;
  /** The account's B2C short code (PartyA of payouts and of its balance); undefined without B2C. */
  readonly b2cShortcode: string | undefined;
  /** The balance of the B2C short code (b2cShortcode, by its initiator), posted later to the result URL. */
  accountBalance(request: AccountBalanceRequest): Promise<DarajaAcknowledgement>;
  /** How the account's customers pay (its STK TransactionType): a paybill, or a till (Buy Goods). */
  readonly transactionType: DarajaTransactionType;
  /** Pull Transactions register: once per short code; "already registered" is success too. Safe to repeat. */
  pullRegister(request: PullRegisterRequest): Promise<PullRegisterResponse>;
  /** Pull Transactions query, every page of the window. Safe to repeat: it moves no money. */
  pullTransactions(request: PullTransactionsRequest): Promise<PullTransactionsResult>;
  /** Dynamic QR: the QR code a customer scans in the M-Pesa app to pay the CPI. */
  dynamicQr(request: DynamicQrRequest): Promise<DynamicQrResponse>;
}
