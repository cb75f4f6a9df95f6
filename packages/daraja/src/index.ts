export { createDarajaClient, createDarajaClientOver } from "./client.js";
export type { DarajaHttpResponse, DarajaRequest, DarajaTransport } from "./transport.js";
export type {
  AccountBalanceRequest,
  B2cCommandId,
  B2cPaymentRequest,
  C2bRegisterRequest,
  C2bRegisterResponse,
  C2bRegisterVersion,
  DarajaAcknowledgement,
  DarajaClient,
  DarajaClientConfig,
  DarajaLogger,
  DarajaProtocolConfig,
  DarajaTransactionType,
  DynamicQrRequest,
  DynamicQrResponse,
  PullRegisterRequest,
  PullRegisterResponse,
  PullTransactionsRequest,
  PullTransactionsResult,
  StkPushRequest,
  StkPushResponse,
  StkQueryRequest,
  StkQueryResult,
  ReversalRequest,
  TransactionStatusRequest,
} from "./types.js";
export { DarajaError, isDarajaError, readErrorEnvelope, isInvalidAccessToken, isTransactionBeingProcessed, darajaErrorFromResponse } from "./errors.js";
export type { DarajaErrorDetails, DarajaErrorEnvelope, DarajaErrorKind, DarajaErrorReason, DarajaOutcome } from "./errors.js";
export { DEFAULT_RETRY_DELAYS_MS, DEFAULT_TIMEOUT_MS, tokenFetchMs, worstCaseRequestMs } from "./timing.js";
export type { DarajaTiming } from "./timing.js";
export { classifyB2cResultCode, classifyReversalResultCode, classifyStkResultCode, normaliseResultCode } from "./result-codes.js";
export type { B2cStatus, ReversalStatus, StkStatus } from "./result-codes.js";
export { parseStkCallback } from "./stk-callback.js";
export type { StkCallback } from "./stk-callback.js";
export { classifyTransactionStatusResult, parseB2cResult, parseB2cTimeout, parseReversalResult, parseReversalTimeout, parseTransactionStatusResult } from "./result-callback.js";
export type { B2cResult, B2cTimeout, QueriedTransaction, ResultEnvelope, ReversalResult, TransactionStatusResult } from "./result-callback.js";
export type { ParameterValue, ParseResult } from "./parse-result.js";
export { darajaTimestamp, parseDarajaTimestamp, stkPassword } from "./timestamp.js";
export { DARAJA_MSISDN_PATTERN, normaliseKenyanPhone } from "./phone.js";
export { securityCredentialFromCertificate } from "./security-credential.js";
export * from "./limits.js";
export {
  ACCOUNT_BALANCE_PATH,
  parseAccountBalanceResult,
  parseAccountBalances,
  parseAccountBalanceTimeout,
  type AccountBalanceEntry,
  type AccountBalanceResult,
} from "./account-balance.js";
export { C2B_CONFIRMATION_ANSWER, C2B_REJECTION_CODES, c2bValidationAnswer, maskMsisdn, msisdnForm, parseC2bNotification } from "./c2b.js";
export type { C2bMsisdnForm, C2bNotification, C2bRejectionCode } from "./c2b.js";
export { accessTokenAccount } from "./oauth.js";
export type { AccessTokenStore } from "./oauth.js";
export {
  isPulledPayment,
  parsePulledTransaction,
  parsePullDate,
  parseTrxDate,
  PULL_ALREADY_REGISTERED,
  PULL_PAYMENT_TYPES,
  PULL_QUERY_PATH,
  PULL_REGISTER_PATH,
  PULL_REGISTERED,
  pullDate,
  type PulledTransaction,
} from "./pull.js";
export { DYNAMIC_QR_PATH, parseDynamicQrAnswer, type DynamicQrAnswer, type QrTransactionCode } from "./dynamic-qr.js";
