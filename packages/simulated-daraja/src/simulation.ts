/**
 * A simulated Daraja without an HTTP listener: each operation takes the request body Daraja would
 * receive and gives the answer Daraja would send, and the callbacks follow as Daraja sends them.
 * Its outcomes live in the store it is given (memory for the HTTP simulator, the database for test
 * mode); its tokens and pending timers live in this process.
 */
import { createEndpoints, type SimulationEndpoint } from "./apis.js";
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
import { createTokens, type Tokens } from "./tokens.js";
import { createDynamicQrOperations, type QrScanRequest, type QrScanResult } from "./dynamic-qr.js";

export interface DarajaSimulation {
  readonly options: ResolvedSimulationOptions;
  readonly tokens: Tokens;
  /** Every Daraja POST endpoint it answers (apis.ts), in the list's order. */
  readonly endpoints: readonly SimulationEndpoint[];
  /** The endpoint at a path; undefined: Daraja has none there. */
  endpoint(path: string): SimulationEndpoint | undefined;
  /** A customer paying a paybill or till from the M-Pesa menu (no Daraja API: the simulator's control). */
  c2bPay(request: C2bPayRequest): Promise<C2bPayResult>;
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
  const c2b = createC2bOperations(context);
  const qr = createDynamicQrOperations(c2b.pay);
  const endpoints = createEndpoints(context);
  const byPath = new Map(endpoints.map((endpoint) => [endpoint.path, endpoint]));
  return {
    options,
    tokens: createTokens(options),
    endpoints,
    endpoint: (path) => byPath.get(path),
    c2bPay: c2b.pay,
    qrScan: qr.scan,
    reset: () => hooks.store.clear(),
    close: () => callbacks.close(),
  };
}
