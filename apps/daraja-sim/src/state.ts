import type { ResultCodeText, SimApi, SimOutcome } from "./outcomes.js";

export interface StkPayment {
  merchantRequestId: string;
  checkoutRequestId: string;
  phone: string;
  amount: number;
  partyB: string;
  transactionType: string;
  callbackUrl: string;
  outcome: SimOutcome;
  result: ResultCodeText;
  createdAt: Date;
  settled: boolean;
  receipt: string | null;
  settledAt: Date | null;
}

export interface B2cPayout {
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
  createdAt: Date;
  settled: boolean;
  settledAt: Date | null;
}

export interface SimReversal {
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
  createdAt: Date;
  settled: boolean;
  settledAt: Date | null;
}

export interface QueuedOutcome {
  outcome: SimOutcome;
  phone: string | null;
  api: SimApi | null;
}

export interface LoggedRequest {
  at: string;
  method: string;
  path: string;
  status: number;
  body: unknown;
}

export type CallbackKind = "stk" | "b2c_result" | "b2c_timeout" | "transaction_status" | "reversal_result" | "reversal_timeout" | "c2b_validation" | "c2b_confirmation";

/** A C2B payment M-Pesa completed (the money reached the short code); a cancelled one is not kept. */
export interface C2bPayment {
  transId: string;
  phone: string;
  amount: number;
  shortCode: string;
  command: "CustomerPayBillOnline" | "CustomerBuyGoodsOnline";
  completedAt: Date;
}

/** A short code's C2B URLs (register URL, v1 or v2); re-registering overwrites them, as the sandbox does. */
export interface C2bRegistration {
  shortCode: string;
  responseType: "Completed" | "Cancelled";
  confirmationUrl: string;
  validationUrl: string;
  version: "v1" | "v2";
}

export interface LoggedCallback {
  at: string;
  kind: CallbackKind;
  url: string;
  body: unknown;
  status: number | null;
  error: string | null;
}

/** Everything one simulator instance remembers. Created per instance; nothing is module-level. */
export interface SimulatorState {
  /** token → expiry (ms since epoch). */
  tokens: Map<string, number>;
  stkPayments: Map<string, StkPayment>;
  b2cPayouts: Map<string, B2cPayout>;
  /** Reversals by OriginatorConversationID. */
  reversals: Map<string, SimReversal>;
  queuedOutcomes: QueuedOutcome[];
  requests: LoggedRequest[];
  callbacks: LoggedCallback[];
  utilityBalance: number;
  c2bRegistrations: Map<string, C2bRegistration>;
  /** Every C2B TransID issued (the ledger Daraja would keep). */
  c2bTransIds: Set<string>;
  /** Completed C2B payments by TransID: Reversal and Transaction Status know them as they know an STK receipt. */
  c2bPayments: Map<string, C2bPayment>;
}

export const INITIAL_UTILITY_BALANCE = 8_959_269.6;

export function createSimulatorState(): SimulatorState {
  return {
    tokens: new Map(),
    stkPayments: new Map(),
    b2cPayouts: new Map(),
    reversals: new Map(),
    queuedOutcomes: [],
    requests: [],
    callbacks: [],
    utilityBalance: INITIAL_UTILITY_BALANCE,
    c2bRegistrations: new Map(),
    c2bTransIds: new Set(),
    c2bPayments: new Map(),
  };
}

/** Forgets payments, payouts, reversals, queued outcomes and logs. Issued tokens stay valid. */
export function resetSimulatorState(state: SimulatorState): void {
  state.stkPayments.clear();
  state.b2cPayouts.clear();
  state.reversals.clear();
  state.queuedOutcomes.length = 0;
  state.requests.length = 0;
  state.callbacks.length = 0;
  state.utilityBalance = INITIAL_UTILITY_BALANCE;
  state.c2bRegistrations.clear();
  state.c2bTransIds.clear();
  state.c2bPayments.clear();
}

export function pushBounded<T>(list: T[], entry: T, limit: number): void {
  list.push(entry);
  if (list.length > limit) list.splice(0, list.length - limit);
}

/** Takes the first queued outcome that applies to this request (phone- and API-specific ones included). */
export function takeQueuedOutcome(state: SimulatorState, api: SimApi, phone: string, allowed: readonly SimOutcome[]): SimOutcome | null {
  const index = state.queuedOutcomes.findIndex(
    (queued) => (queued.api === null || queued.api === api) && (queued.phone === null || queued.phone === phone) && allowed.includes(queued.outcome),
  );
  if (index === -1) return null;
  const [queued] = state.queuedOutcomes.splice(index, 1);
  return queued?.outcome ?? null;
}
