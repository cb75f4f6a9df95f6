/**
 * What the simulated Daraja remembers between a request and its callback, query or reversal: one
 * record per STK prompt, B2C payout, reversal, C2B payment and C2B registration. Records are plain
 * JSON (times as ISO strings) so that a store may keep them anywhere: in memory for the HTTP
 * simulator, in the database for test mode (so any instance answers for them).
 */
import type { ResultCodeText, SimOutcome } from "./outcomes.js";

export interface StkPayment {
  kind: "stk";
  merchantRequestId: string;
  checkoutRequestId: string;
  phone: string;
  amount: number;
  partyB: string;
  transactionType: string;
  callbackUrl: string;
  /** The prompt's AccountReference (absent in records kept before Pull was simulated). */
  accountReference?: string;
  outcome: SimOutcome;
  result: ResultCodeText;
  createdAt: string;
  settled: boolean;
  receipt: string | null;
  settledAt: string | null;
}

export interface B2cPayout {
  kind: "b2c";
  originatorConversationId: string;
  conversationId: string;
  transactionId: string;
  phone: string;
  amount: number;
  commandId: string;
  outcome: SimOutcome;
  result: ResultCodeText;
  resultUrl: string;
  queueTimeoutUrl: string;
  occasion: string | null;
  createdAt: string;
  settled: boolean;
  settledAt: string | null;
}

export interface SimReversal {
  kind: "reversal";
  originatorConversationId: string;
  conversationId: string;
  /** The reversal's own receipt. */
  transactionId: string;
  /** The receipt reversed. */
  originalTransactionId: string;
  amount: number;
  /** The customer refunded, as `2547… - NAME`. */
  creditParty: string;
  receiverParty: string;
  outcome: SimOutcome;
  result: ResultCodeText;
  resultUrl: string;
  queueTimeoutUrl: string;
  createdAt: string;
  settled: boolean;
  settledAt: string | null;
}

/** A C2B payment from the M-Pesa menu; only a completed one reached the short code. */
export interface C2bPayment {
  kind: "c2b";
  transId: string;
  phone: string;
  amount: number;
  shortCode: string;
  command: "CustomerPayBillOnline" | "CustomerBuyGoodsOnline";
  /** The account the customer typed (absent in records kept before Pull was simulated). */
  account?: string;
  completed: boolean;
  at: string;
}

/** A short code registered for Pull Transactions (a second register answers "already registered"). */
export interface PullRegistration {
  kind: "pull_registration";
  shortCode: string;
  nominatedNumber: string;
  callbackUrl: string;
  registeredAt: string;
}

/** A short code's C2B URLs (register URL, v1 or v2); re-registering overwrites them, as the sandbox does. */
export interface C2bRegistration {
  kind: "c2b_registration";
  shortCode: string;
  responseType: "Completed" | "Cancelled";
  confirmationUrl: string;
  validationUrl: string;
  version: "v1" | "v2";
}

export type SimRecord = StkPayment | B2cPayout | SimReversal | C2bPayment | C2bRegistration | PullRegistration;
export type SimRecordKind = SimRecord["kind"];
export type RecordOf<K extends SimRecordKind> = Extract<SimRecord, { kind: K }>;

/**
 * A record as a store keeps it: found again by its kind and Daraja's id for it (CheckoutRequestID,
 * OriginatorConversationID, TransID, short code), by the receipt it carries, by the receipt it
 * reverses, or by the customer's phone.
 */
export interface StoredRecord {
  kind: SimRecordKind;
  id: string;
  receipt: string | null;
  reverses: string | null;
  phone: string | null;
  data: SimRecord;
}

export type RecordLookup = { receipt: string } | { reverses: string } | { phone: string };

/** Where a simulation keeps its records and the B2C utility account's balance. */
export interface SimulationStore {
  /** Stores a new record; false (nothing stored) when its kind already has one with this id. */
  add(record: StoredRecord): Promise<boolean>;
  /** Stores a record, replacing the one of its kind with its id. */
  put(record: StoredRecord): Promise<void>;
  get(kind: SimRecordKind, id: string): Promise<StoredRecord | null>;
  /** The records of a kind found by one of their keys, oldest first. */
  find(kind: SimRecordKind, lookup: RecordLookup): Promise<StoredRecord[]>;
  /** Every record of a kind, oldest first (what Pull Transactions reads of a short code). */
  list(kind: SimRecordKind): Promise<StoredRecord[]>;
  /** The utility account's balance after adding `delta` to it (`initial` before anything was added). */
  addToBalance(delta: number, initial: number): Promise<number>;
  /** Forgets every record and the balance. */
  clear(): Promise<void>;
}

function idOf(record: SimRecord): string {
  switch (record.kind) {
    case "stk":
      return record.checkoutRequestId;
    case "b2c":
    case "reversal":
      return record.originatorConversationId;
    case "c2b":
      return record.transId;
    case "c2b_registration":
    case "pull_registration":
      return record.shortCode;
  }
}

function receiptOf(record: SimRecord): string | null {
  switch (record.kind) {
    case "stk":
      return record.receipt;
    case "b2c":
    case "reversal":
      return record.transactionId;
    case "c2b":
      return record.transId;
    case "c2b_registration":
    case "pull_registration":
      return null;
  }
}

export function stored(record: SimRecord): StoredRecord {
  return {
    kind: record.kind,
    id: idOf(record),
    receipt: receiptOf(record),
    reverses: record.kind === "reversal" ? record.originalTransactionId : null,
    phone: "phone" in record ? record.phone : null,
    data: record,
  };
}

/** The store's records, typed by kind. */
export interface Records {
  add(record: SimRecord): Promise<boolean>;
  put(record: SimRecord): Promise<void>;
  get<K extends SimRecordKind>(kind: K, id: string): Promise<RecordOf<K> | null>;
  find<K extends SimRecordKind>(kind: K, lookup: RecordLookup): Promise<RecordOf<K>[]>;
  list<K extends SimRecordKind>(kind: K): Promise<RecordOf<K>[]>;
}

export function typedRecords(store: SimulationStore): Records {
  return {
    add: (record) => store.add(stored(record)),
    put: (record) => store.put(stored(record)),
    get: async <K extends SimRecordKind>(kind: K, id: string) =>
      ((await store.get(kind, id))?.data ?? null) as RecordOf<K> | null,
    find: async <K extends SimRecordKind>(kind: K, lookup: RecordLookup) =>
      (await store.find(kind, lookup)).map((row) => row.data as RecordOf<K>),
    list: async <K extends SimRecordKind>(kind: K) => (await store.list(kind)).map((row) => row.data as RecordOf<K>),
  };
}
