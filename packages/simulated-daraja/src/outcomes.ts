/** How a simulated STK prompt or B2C payout ends. */
export type SimOutcome =
  | "success"
  | "cancelled"
  | "timeout"
  | "insufficient_funds"
  | "wrong_pin"
  | "no_callback"
  | "duplicate_callback"
  | "subscriber_locked"
  | "unknown_result";

export const SIM_OUTCOMES = [
  "success",
  "cancelled",
  "timeout",
  "insufficient_funds",
  "wrong_pin",
  "no_callback",
  "duplicate_callback",
  "subscriber_locked",
  "unknown_result",
] as const satisfies readonly SimOutcome[];

export const STK_OUTCOMES: readonly SimOutcome[] = SIM_OUTCOMES;
export const B2C_OUTCOMES: readonly SimOutcome[] = [
  "success",
  "timeout",
  "insufficient_funds",
  "wrong_pin",
  "no_callback",
  "duplicate_callback",
  "unknown_result",
];

/** Exact STK amounts (KES) that choose an outcome; every other amount succeeds. */
export const STK_MAGIC_AMOUNTS: Readonly<Record<number, SimOutcome>> = {
  2: "cancelled",
  3: "timeout",
  4: "insufficient_funds",
  5: "wrong_pin",
  6: "no_callback",
  7: "duplicate_callback",
  8: "subscriber_locked",
  9: "unknown_result",
};

/** Exact B2C amounts (KES, B2C minimum is 10) that choose an outcome; every other valid amount succeeds. */
export const B2C_MAGIC_AMOUNTS: Readonly<Record<number, SimOutcome>> = {
  11: "insufficient_funds",
  12: "timeout",
  13: "no_callback",
  14: "duplicate_callback",
  15: "wrong_pin",
  16: "unknown_result",
};

export interface ResultCodeText {
  code: number | string;
  desc: string;
}

export const RESULT_SUCCESS: ResultCodeText = { code: 0, desc: "The service request is processed successfully." };
export const RESULT_INITIATOR_INVALID: ResultCodeText = { code: 2001, desc: "The initiator information is invalid." };
export const RESULT_NOT_PERMITTED: ResultCodeText = {
  code: 2028,
  desc: "The request is not permitted according to product assignment.",
};
export const RESULT_BELOW_MINIMUM: ResultCodeText = {
  code: 2,
  desc: "Declined due to limit rule: less than the minimum transaction amount.",
};
export const RESULT_ABOVE_MAXIMUM: ResultCodeText = {
  code: 3,
  desc: "Declined due to limit rule: greater than the maximum transaction amount.",
};
// Not a Daraja code: exists so a client's "unrecognised code → reconcile" path can be exercised.
export const RESULT_UNRECOGNISED: ResultCodeText = { code: 5555, desc: "Simulated unrecognised result code" };

/** The ResultCode an outcome ends with (subscriber_locked never gets one: it is refused up front). */
export function stkResultFor(outcome: SimOutcome): ResultCodeText {
  switch (outcome) {
    case "cancelled":
      return { code: 1032, desc: "Request Cancelled by user" };
    case "timeout":
      return { code: 1037, desc: "DS timeout user cannot be reached" };
    case "insufficient_funds":
      return { code: 1, desc: "The balance is insufficient for the transaction." };
    case "wrong_pin":
      return RESULT_INITIATOR_INVALID;
    case "unknown_result":
      return RESULT_UNRECOGNISED;
    default:
      return RESULT_SUCCESS;
  }
}

export function b2cResultFor(outcome: SimOutcome): ResultCodeText {
  switch (outcome) {
    case "insufficient_funds":
      return { code: 1, desc: "The balance is insufficient for the transaction." };
    case "wrong_pin":
      return RESULT_INITIATOR_INVALID;
    case "unknown_result":
      return RESULT_UNRECOGNISED;
    default:
      return RESULT_SUCCESS;
  }
}

export const B2C_TIMEOUT_RESULT: ResultCodeText = { code: 1, desc: "The service request has timed out." };

export const REVERSAL_OUTCOMES: readonly SimOutcome[] = [
  "success",
  "timeout",
  "insufficient_funds",
  "no_callback",
  "duplicate_callback",
  "unknown_result",
];

/**
 * Exact reversal amounts (KES: the amount of the payment reversed, so amounts an STK prompt pays)
 * that choose an outcome; every other amount is reversed. docs/daraja-simulator.md#reversals.
 */
export const REVERSAL_MAGIC_AMOUNTS: Readonly<Record<number, SimOutcome>> = {
  31: "insufficient_funds",
  32: "timeout",
  33: "no_callback",
  34: "duplicate_callback",
  35: "unknown_result",
};

export const REVERSAL_ALREADY_REVERSED: ResultCodeText = {
  code: "R000001",
  desc: "The transaction has already been reversed.",
};
export const REVERSAL_UNKNOWN_RECEIPT: ResultCodeText = {
  code: "R000002",
  desc: "The OriginalTransactionID is invalid.",
};

/** A reversal's ResultCode: the number 0 on success, as the portal's samples; failures as Daraja words them. */
export function reversalResultFor(outcome: SimOutcome): ResultCodeText {
  switch (outcome) {
    case "insufficient_funds":
      return { code: 1, desc: "The DebitParty's balance is insufficient for the transaction." };
    case "unknown_result":
      return RESULT_UNRECOGNISED;
    default:
      return RESULT_SUCCESS;
  }
}

/** The time-out body has no portal sample; modelled on mpesakit's (ResultType 1, ResultCode "1"). */
export const REVERSAL_TIMEOUT_RESULT: ResultCodeText = { code: "1", desc: "The service request timed out." };
