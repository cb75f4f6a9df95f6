/**
 * Daraja's Account Balance API (docs/daraja-wire-format.md#account-balance): asynchronous, an
 * acknowledgement and then a Result posted to the ResultURL (or a notice to the QueueTimeOutURL). Its
 * balances come as one string, `Name|CUR|current|available|reserved|uncleared` entries joined by `&`.
 */
import { parseB2cTimeout, parseResultEnvelope, type B2cTimeout, type ResultEnvelope } from "./result-callback.js";
import { parsed, rejected, stringFrom, type ParseResult } from "./parse-result.js";

/** The request's CommandID and path. */
export const ACCOUNT_BALANCE_COMMAND = "AccountBalance";
export const ACCOUNT_BALANCE_PATH = "/mpesa/accountbalance/v1/query";

/** One account of a balance: its amounts in shillings, as Daraja gives them (two decimals, may be negative). */
export interface AccountBalanceEntry {
  /** `Working Account`, `Utility Account`, `Merchant Account`, …: neither the set nor the order is fixed. */
  name: string;
  currency: string;
  current: number;
  available: number;
  reserved: number;
  uncleared: number;
}

const amountPattern = /^-?\d+(\.\d{1,2})?$/;

/**
 * Reads the `AccountBalance` string. The four numbers are read as current (total), available,
 * reserved and uncleared: the order the B2B sample's arithmetic backs (current = available +
 * reserved + uncleared); sources disagree (docs/daraja-wire-format.md#account-balance). An entry
 * that is not exactly six `|`-separated parts, or an amount that is not a decimal, refuses the whole.
 */
export function parseAccountBalances(value: string): ParseResult<AccountBalanceEntry[]> {
  const entries: AccountBalanceEntry[] = [];
  for (const [index, entry] of value.split("&").entries()) {
    const parts = entry.split("|").map((part) => part.trim());
    const [name, currency, ...amounts] = parts;
    if (parts.length !== 6 || !name || !currency) {
      return rejected(`AccountBalance entry ${index + 1} is not name|currency|current|available|reserved|uncleared`);
    }
    if (!amounts.every((amount) => amountPattern.test(amount))) {
      return rejected(`AccountBalance entry ${index + 1} has an amount that is not a decimal`);
    }
    const [current, available, reserved, uncleared] = amounts.map(Number) as [number, number, number, number];
    entries.push({ name, currency, current, available, reserved, uncleared });
  }
  return parsed(entries);
}

/** An Account Balance Result: its envelope, and on success the balance string as sent and read. */
export interface AccountBalanceResult extends ResultEnvelope {
  /** The `AccountBalance` parameter as Daraja sent it; absent on a failure. */
  balance?: string;
  /** `BOCompletedTime`: `YYYYMMDDHHmmss`, Kenyan time (a string or a number on the wire). */
  completedAt?: string;
}

/**
 * Parses the body Daraja POSTs to an Account Balance ResultURL. The balance string is returned as sent:
 * reading it (parseAccountBalances) is the caller's, so an unreadable one is still a stored, known result.
 */
export function parseAccountBalanceResult(body: unknown): ParseResult<AccountBalanceResult> {
  const envelope = parseResultEnvelope(body);
  if (!envelope.ok) return envelope;
  const p = envelope.value.parameters;
  const result: AccountBalanceResult = { ...envelope.value };
  const balance = stringFrom(p["AccountBalance"]);
  const completedAt = stringFrom(p["BOCompletedTime"]);
  if (balance !== undefined) result.balance = balance;
  if (completedAt !== undefined) result.completedAt = completedAt;
  return parsed(result);
}

/** An Account Balance QueueTimeOutURL notice: the envelope of a B2C time-out; no balance follows. */
export const parseAccountBalanceTimeout: (body: unknown) => ParseResult<B2cTimeout> = parseB2cTimeout;
