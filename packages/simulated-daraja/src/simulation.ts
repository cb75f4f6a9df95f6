/**
 * A simulated Daraja without an HTTP listener: each operation takes the request body Daraja would
 * receive and gives the answer Daraja would send, and the callbacks follow as Daraja sends them.
 * Its outcomes live in the store it is given (memory for the HTTP simulator, the database for test
 * mode); its tokens and pending timers live in this process.
 */
import { createAccountBalanceOperation } from "./account-balance.js";
import type { DarajaAnswer, JsonBody } from "./answers.js";
import { createB2cOperation, type B2cVersion } from "./b2c.js";
import { createC2bOperations, type C2bPayRequest, type C2bPayResult } from "./c2b.js";
import { createCallbackSender, type LoggedCallback } from "./callback-sender.js";
import { INITIAL_UTILITY_BALANCE, type OutcomeChooser, type SimulationContext } from "./context.js";
import {
  resolveOptions,
  type ResolvedSimulationOptions,
  type SimulationLogger,
  type SimulationOptions,
} from "./options.js";
import { typedRecords, type SimulationStore } from "./records.js";
import { createReversalOperation } from "./reversal.js";
import { createStkOperations } from "./stk.js";
import { createTokens, type Tokens } from "./tokens.js";
import { createTransactionStatusOperation } from "./transaction-status.js";
import { createPullOperations } from "./pull.js";
import { createDynamicQrOperations, type QrScanRequest, type QrScanResult } from "./dynamic-qr.js";

export interface DarajaSimulation {
  readonly options: ResolvedSimulationOptions;
  readonly tokens: Tokens;
  stkPush(body: JsonBody): Promise<DarajaAnswer>;
  stkQuery(body: JsonBody): Promise<DarajaAnswer>;
  b2cPayment(body: JsonBody, version: B2cVersion): Promise<DarajaAnswer>;
  transactionStatus(body: JsonBody): Promise<DarajaAnswer>;
  reversal(body: JsonBody): Promise<DarajaAnswer>;
  accountBalance(body: JsonBody): Promise<DarajaAnswer>;
  /** The gateway's refusal of a C2B register URL version the app lacks, before the body is read; null: none. */
  c2bProductRefusal(version: "v1" | "v2"): DarajaAnswer | null;
  registerC2bUrls(body: JsonBody, version: "v1" | "v2"): Promise<DarajaAnswer>;
  /** A customer paying a paybill or till from the M-Pesa menu (no Daraja API: the simulator's control). */
  c2bPay(request: C2bPayRequest): Promise<C2bPayResult>;
  /** Pull Transactions: register a short code, and query its receipts by window (paged). */
  pullRegister(body: JsonBody): Promise<DarajaAnswer>;
  pullQuery(body: JsonBody): Promise<DarajaAnswer>;
  /** Dynamic QR: a QR code (a PNG) to pay a paybill, till or phone. */
  dynamicQr(body: JsonBody): Promise<DarajaAnswer>;
  /** A customer scanning one of this simulator's QR codes in the M-Pesa app and paying (the simulator's control). */
  qrScan(request: QrScanRequest): Promise<QrScanResult>;
  /** Forgets every record and the balance (issued tokens stay valid). */
  reset(): Promise<void>;
  /** Cancels the callbacks still to come. */
  close(): void;
}

export interface SimulationHooks {
  /** Where the records are kept. */
  store: SimulationStore;
  logger?: SimulationLogger;
  /** Told of every callback sent, once its exchange is over. */
  onCallback?: (callback: LoggedCallback) => void;
  /** Outcomes chosen ahead of the amounts' (the HTTP simulator's control queue). */
  chooseOutcome?: OutcomeChooser;
}

export function createDarajaSimulation(settings: SimulationOptions, hooks: SimulationHooks): DarajaSimulation {
  const options = resolveOptions(settings);
  const callbacks = createCallbackSender(options, {
    logger: hooks.logger ?? null,
    onCallback: hooks.onCallback ?? null,
  });
  const context: SimulationContext = {
    options,
    records: typedRecords(hooks.store),
    balance: (delta) => hooks.store.addToBalance(delta, INITIAL_UTILITY_BALANCE),
    callbacks,
    chooseOutcome: hooks.chooseOutcome ?? (() => null),
  };
  const stk = createStkOperations(context);
  const c2b = createC2bOperations(context);
  const pull = createPullOperations(context);
  const qr = createDynamicQrOperations(c2b.pay);
  return {
    options,
    tokens: createTokens(options),
    stkPush: stk.push,
    stkQuery: stk.query,
    b2cPayment: createB2cOperation(context),
    transactionStatus: createTransactionStatusOperation(context),
    reversal: createReversalOperation(context),
    accountBalance: createAccountBalanceOperation(context),
    c2bProductRefusal: c2b.productRefusal,
    registerC2bUrls: c2b.register,
    c2bPay: c2b.pay,
    pullRegister: pull.register,
    pullQuery: pull.query,
    dynamicQr: qr.generate,
    qrScan: qr.scan,
    reset: () => hooks.store.clear(),
    close: () => callbacks.close(),
  };
}
