import { z } from "zod";
import { idSchema, numberFrom, oneOrMany, parameterValueSchema, parsed, rejected, resultCodeSchema, stringFrom } from "./parse-result.js";
import type { ParameterValue, ParseResult } from "./parse-result.js";

const keyValue = z.object({ Key: z.string(), Value: parameterValueSchema });

const nonEmptyId = (field: string) => idSchema.refine((id) => id !== "", `${field} is empty`);

// The `{ Result: … }` envelope shared by B2C results, B2C timeouts and Transaction Status results.
const resultEnvelopeSchema = z.object({
  Result: z.object({
    ResultType: z.union([z.number(), z.string()]).optional(),
    ResultCode: resultCodeSchema,
    ResultDesc: z.string(),
    OriginatorConversationID: nonEmptyId("OriginatorConversationID"),
    ConversationID: nonEmptyId("ConversationID"),
    TransactionID: idSchema.nullish(),
    ResultParameters: z.object({ ResultParameter: oneOrMany(keyValue).optional() }).nullish(),
    ReferenceData: z.object({ ReferenceItem: oneOrMany(keyValue).optional() }).nullish(),
  }),
});

export interface ResultEnvelope {
  resultType: string | null;
  resultCode: string;
  resultDesc: string;
  originatorConversationId: string;
  conversationId: string;
  transactionId: string | null;
  /** ResultParameters by Key; a Key sent without Value maps to null. */
  parameters: Record<string, ParameterValue>;
  /** ReferenceData items by Key. */
  referenceData: Record<string, ParameterValue>;
}

function toRecord(items: { Key: string; Value: ParameterValue }[] | undefined): Record<string, ParameterValue> {
  const record: Record<string, ParameterValue> = {};
  for (const item of items ?? []) record[item.Key] = item.Value;
  return record;
}

export function parseResultEnvelope(body: unknown): ParseResult<ResultEnvelope> {
  const result = resultEnvelopeSchema.safeParse(body);
  if (!result.success) return rejected(result.error);
  const r = result.data.Result;
  const transactionId = r.TransactionID === null || r.TransactionID === undefined || r.TransactionID === "" ? null : r.TransactionID;
  return parsed({
    resultType: r.ResultType === undefined ? null : String(r.ResultType),
    resultCode: r.ResultCode,
    resultDesc: r.ResultDesc,
    originatorConversationId: r.OriginatorConversationID,
    conversationId: r.ConversationID,
    transactionId,
    parameters: toRecord(r.ResultParameters?.ResultParameter),
    referenceData: toRecord(r.ReferenceData?.ReferenceItem),
  });
}

function assignDefined<T extends object>(target: T, values: Partial<T>): T {
  for (const [key, value] of Object.entries(values)) {
    if (value !== undefined) (target as Record<string, unknown>)[key] = value;
  }
  return target;
}

export interface B2cResult extends ResultEnvelope {
  amount?: number;
  receipt?: string;
  /** e.g. `254705912645 - NICHOLAS JOHN SONGOK`. */
  receiverName?: string;
  /** As Daraja sends it: `dd.MM.yyyy HH:mm:ss`, Kenyan time. */
  completedAt?: string;
  recipientIsRegisteredCustomer?: boolean;
  utilityAccountAvailableFunds?: number;
  workingAccountAvailableFunds?: number;
  chargesPaidAccountAvailableFunds?: number;
}

/** Parses the body Daraja POSTs to a B2C ResultURL. */
export function parseB2cResult(body: unknown): ParseResult<B2cResult> {
  const envelope = parseResultEnvelope(body);
  if (!envelope.ok) return envelope;
  const p = envelope.value.parameters;
  const registered = stringFrom(p["B2CRecipientIsRegisteredCustomer"]);
  return parsed(
    assignDefined<B2cResult>(
      { ...envelope.value },
      {
        amount: numberFrom(p["TransactionAmount"]),
        receipt: stringFrom(p["TransactionReceipt"]),
        receiverName: stringFrom(p["ReceiverPartyPublicName"]),
        completedAt: stringFrom(p["TransactionCompletedDateTime"]),
        recipientIsRegisteredCustomer: registered === undefined ? undefined : registered.toUpperCase() === "Y",
        utilityAccountAvailableFunds: numberFrom(p["B2CUtilityAccountAvailableFunds"]),
        workingAccountAvailableFunds: numberFrom(p["B2CWorkingAccountAvailableFunds"]),
        chargesPaidAccountAvailableFunds: numberFrom(p["B2CChargesPaidAccountAvailableFunds"]),
      },
    ),
  );
}

export type B2cTimeout = Omit<ResultEnvelope, "parameters" | "referenceData">;

/** Parses the body Daraja POSTs to a QueueTimeOutURL. The outcome of the payout is unknown after it. */
export function parseB2cTimeout(body: unknown): ParseResult<B2cTimeout> {
  const envelope = parseResultEnvelope(body);
  if (!envelope.ok) return envelope;
  const { parameters: _parameters, referenceData: _referenceData, ...timeout } = envelope.value;
  return parsed(timeout);
}

/** The queried transaction, as described by a Transaction Status result's ResultParameters. */
export interface QueriedTransaction {
  receiptNo?: string;
  /** `Completed`, `Failed`, … as Daraja words it. */
  status?: string;
  amount?: number;
  /** The OriginatorConversationID of the queried transaction (not of the query). */
  originatorConversationId?: string;
  conversationId?: string;
  debitPartyName?: string;
  creditPartyName?: string;
  reasonType?: string;
  /** `YYYYMMDDHHmmss`, Kenyan time. */
  initiatedTime?: string;
  finalisedTime?: string;
}

/**
 * Top-level ids describe the status query itself; `transaction` describes the queried transaction,
 * which is what a payout is matched on.
 */
export interface TransactionStatusResult extends ResultEnvelope {
  transaction: QueriedTransaction;
}

/** Parses the body Daraja POSTs to a Transaction Status ResultURL. */
export function parseTransactionStatusResult(body: unknown): ParseResult<TransactionStatusResult> {
  const envelope = parseResultEnvelope(body);
  if (!envelope.ok) return envelope;
  const p = envelope.value.parameters;
  // Older answers spell some keys with spaces ("Originator Conversation ID").
  const either = (a: string, b: string) => p[a] ?? p[b];
  const transaction = assignDefined<QueriedTransaction>(
    {},
    {
      receiptNo: stringFrom(p["ReceiptNo"]),
      status: stringFrom(p["TransactionStatus"]),
      amount: numberFrom(p["Amount"]),
      originatorConversationId: stringFrom(either("OriginatorConversationID", "Originator Conversation ID")),
      conversationId: stringFrom(either("ConversationID", "Conversation ID")),
      debitPartyName: stringFrom(p["DebitPartyName"]),
      creditPartyName: stringFrom(p["CreditPartyName"]),
      reasonType: stringFrom(p["ReasonType"]),
      initiatedTime: stringFrom(p["InitiatedTime"]),
      finalisedTime: stringFrom(p["FinalisedTime"]),
    },
  );
  return parsed({ ...envelope.value, transaction });
}

/**
 * What a Transaction Status result says about the queried payout. A failed query (ResultCode ≠ 0)
 * says nothing about the payout, so it is UNKNOWN, as is any status word not known to be final.
 */
export function classifyTransactionStatusResult(result: TransactionStatusResult): "SUCCESS" | "FAILED" | "UNKNOWN" {
  if (result.resultCode !== "0") return "UNKNOWN";
  const status = result.transaction.status?.toLowerCase();
  if (status === "completed") return "SUCCESS";
  if (status === "failed") return "FAILED";
  return "UNKNOWN";
}

/** A Reversal result: the top-level TransactionID is the reversal's own receipt. */
export interface ReversalResult extends ResultEnvelope {
  amount?: number;
  /** The receipt of the payment that was reversed. */
  originalTransactionId?: string;
  /** `YYYYMMDDHHmmss`, Kenyan time (Daraja sends a number). */
  completedAt?: string;
  charge?: number;
  /** e.g. `254705912645 - NICHOLAS JOHN SONGOK`: the customer refunded. */
  creditPartyName?: string;
  debitPartyName?: string;
}

/** Parses the body Daraja POSTs to a Reversal ResultURL (success with ResultParameters, failure without). */
export function parseReversalResult(body: unknown): ParseResult<ReversalResult> {
  const envelope = parseResultEnvelope(body);
  if (!envelope.ok) return envelope;
  const p = envelope.value.parameters;
  return parsed(
    assignDefined<ReversalResult>(
      { ...envelope.value },
      {
        amount: numberFrom(p["Amount"]),
        originalTransactionId: stringFrom(p["OriginalTransactionID"]),
        completedAt: stringFrom(p["TransCompletedTime"]),
        charge: numberFrom(p["Charge"]),
        creditPartyName: stringFrom(p["CreditPartyPublicName"]),
        debitPartyName: stringFrom(p["DebitPartyPublicName"]),
      },
    ),
  );
}

/** A Reversal QueueTimeOutURL body: the same envelope as a B2C time-out; the reversal's outcome is unknown after it. */
export const parseReversalTimeout: (body: unknown) => ParseResult<B2cTimeout> = parseB2cTimeout;
