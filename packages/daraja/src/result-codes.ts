export type StkStatus = "PENDING" | "SUCCESS" | "CANCELLED" | "FAILED" | "TIMEOUT" | "UNKNOWN";
export type B2cStatus = "SUCCESS" | "FAILED" | "UNKNOWN";

/** Normalises a ResultCode that Daraja sends as a number in callbacks and as a string in queries. */
export function normaliseResultCode(code: string | number | null | undefined): string | null {
  if (code === null || code === undefined) return null;
  const text = String(code).trim();
  return text === "" ? null : text;
}

// Codes that end the payment with no money moved. Anything not listed here is UNKNOWN: mapping an
// unrecognised code to FAILED is how real payments get lost, so it goes to reconciliation instead.
const STK_FAILED = new Set(["1", "2", "3", "4", "8", "17", "1001", "1025", "2001", "2028", "8006", "SFC_IC0003", "9999"]);
const STK_TIMEOUT = new Set(["1037", "1019"]);
const STK_PENDING = new Set(["4999"]);

/** Classifies an STK ResultCode (callback or query). Keys on the code only, never on ResultDesc. */
export function classifyStkResultCode(code: string | number | null | undefined): StkStatus {
  const normalised = normaliseResultCode(code);
  if (normalised === null) return "UNKNOWN";
  if (normalised === "0") return "SUCCESS";
  if (normalised === "1032") return "CANCELLED";
  if (STK_TIMEOUT.has(normalised)) return "TIMEOUT";
  if (STK_PENDING.has(normalised)) return "PENDING";
  if (STK_FAILED.has(normalised)) return "FAILED";
  return "UNKNOWN";
}

const B2C_FAILED = new Set([
  "1", "2", "3", "4", "8", "11", "18", "21", "2001", "2006", "2028", "2040", "8006", "SFC_IC0003",
]);

/** Classifies a B2C Result callback's ResultCode. A timeout callback is not a result: do not pass it here. */
export function classifyB2cResultCode(code: string | number | null | undefined): B2cStatus {
  const normalised = normaliseResultCode(code);
  if (normalised === "0") return "SUCCESS";
  if (normalised !== null && B2C_FAILED.has(normalised)) return "FAILED";
  return "UNKNOWN";
}

export type ReversalStatus = "SUCCESS" | "FAILED" | "UNKNOWN";

// The portal's Reversal codes that end the request with nothing reversed by it (R000001: reversed
// before, by someone else; R000002: unknown receipt); anything else unrecognised is UNKNOWN.
const REVERSAL_FAILED = new Set(["R000001", "R000002", "1", "11", "21", "2001", "2006", "2028", "8006"]);

/** Classifies a Reversal result's ResultCode: the number 0 on success, a string such as "R000002" on failure. */
export function classifyReversalResultCode(code: string | number | null | undefined): ReversalStatus {
  const normalised = normaliseResultCode(code);
  if (normalised === "0") return "SUCCESS";
  if (normalised !== null && REVERSAL_FAILED.has(normalised)) return "FAILED";
  return "UNKNOWN";
}
