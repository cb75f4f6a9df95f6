/**
 * Account Balance results and time-outs (docs/mpesa.md#account-balance): read into what they say of the
 * request they name, then applied once to it under its row lock (shared/stored-callback.ts). A result
 * settles a request still pending; anything after that is a duplicate. No money moves: the stored
 * callback is linked to no payment.
 */
import {
  parseAccountBalanceResult,
  parseAccountBalances,
  parseAccountBalanceTimeout,
  type AccountBalanceEntry,
} from "@mteja/daraja";
import { darajaRequests } from "@mteja/db";
import { refusalOf } from "../shared/callback-authority.js";
import type { CallbackAuthority } from "../shared/callback-tokens.js";
import type { Parse } from "../shared/flow.js";
import { liveMoney } from "../shared/money-mode.js";
import type { PaymentPorts } from "../shared/ports.js";
import { applyStoredCallback, refusedVerdict, type StoredApplyResult } from "../shared/stored-callback.js";
import { BALANCE_FLOW, type BalanceResult } from "./balance-rows.js";
import type { BalanceStatus } from "./schemas.js";

export type BalanceCallbackKind = "balance_result" | "balance_timeout";

const PENDING = "pending" satisfies BalanceStatus;
const NAMES_NO_REQUEST = "names no balance request (unknown OriginatorConversationID / ConversationID)";

/** What a callback says of the request it names. */
export interface BalanceCallback {
  ids: { originatorConversationId: string; conversationId: string };
  status: Exclude<BalanceStatus, "pending">;
  accounts: AccountBalanceEntry[] | null;
  rawBalance: string | null;
  resultCode: string;
  resultDesc: string;
  /** A success whose balance could not be read: the request fails and the callback is flagged for a person. */
  unreadable?: string;
}

/** Reads a result: ResultCode 0 with a balance that reads is a success; anything else a failure. */
function fromResult(body: unknown): Parse<BalanceCallback> {
  const parsed = parseAccountBalanceResult(body);
  if (!parsed.ok) return parsed;
  const r = parsed.value;
  const ids = { originatorConversationId: r.originatorConversationId, conversationId: r.conversationId };
  const known = { ids, resultCode: r.resultCode, resultDesc: r.resultDesc, rawBalance: r.balance ?? null };
  const correlationId = r.originatorConversationId;
  if (r.resultCode !== "0") return { ok: true, value: { ...known, status: "failed", accounts: null }, correlationId };
  const missing = { ok: false as const, error: "no AccountBalance parameter" };
  const accounts = r.balance === undefined ? missing : parseAccountBalances(r.balance);
  const value: BalanceCallback = accounts.ok
    ? { ...known, status: "succeeded", accounts: accounts.value }
    : { ...known, status: "failed", accounts: null, unreadable: `unreadable balance: ${accounts.error}` };
  return { ok: true, value, correlationId };
}

/** Reads a queue time-out: the request failed, no result follows. */
function fromTimeout(body: unknown): Parse<BalanceCallback> {
  const parsed = parseAccountBalanceTimeout(body);
  if (!parsed.ok) return parsed;
  const r = parsed.value;
  const ids = { originatorConversationId: r.originatorConversationId, conversationId: r.conversationId };
  const { resultCode, resultDesc } = r;
  const value: BalanceCallback = { ids, status: "failed", accounts: null, rawBalance: null, resultCode, resultDesc };
  return { ok: true, value, correlationId: r.originatorConversationId };
}

export function parseBalanceCallback(kind: BalanceCallbackKind, body: unknown): Parse<BalanceCallback> {
  return kind === "balance_result" ? fromResult(body) : fromTimeout(body);
}

/** Applies a stored balance callback once, under the request's row lock, if its token speaks for that request. */
export async function applyStoredBalanceCallback(
  deps: PaymentPorts,
  callbackId: string,
  authority: CallbackAuthority,
  callback: BalanceCallback,
): Promise<StoredApplyResult> {
  const { ids } = callback;
  const { result } = await applyStoredCallback(deps, callbackId, ids, async (tx, now) => {
    // By Daraja's ids, else (a shop's token) as that shop's latest pending request without them.
    const unacknowledged =
      authority.form === "tenant" ? { tenantId: authority.tenantId, ...liveMoney, status: PENDING } : undefined;
    const request = await darajaRequests.lockByIds(tx, BALANCE_FLOW, ids, unacknowledged);
    if (!request) return { recorded: true, outcome: "flagged", flagReason: NAMES_NO_REQUEST, link: {} };
    // Every balance request is sent with its shop's own token.
    const refusal = refusalOf(authority, { tenantId: request.tenantId, callbackTokenForm: "tenant" });
    if (refusal !== undefined) return refusedVerdict(refusal);
    if (request.status !== PENDING) return { recorded: true, outcome: "duplicate", link: {} };
    const read: BalanceResult = { accounts: callback.accounts, rawBalance: callback.rawBalance };
    await darajaRequests.settle(tx, request.id, {
      status: callback.status,
      ...ids,
      result: read.accounts === null && read.rawBalance === null ? null : read,
      resultCode: callback.resultCode,
      resultDesc: callback.unreadable ?? callback.resultDesc,
      updatedAt: now,
    });
    if (callback.unreadable) return { recorded: true, outcome: "flagged", flagReason: callback.unreadable, link: {} };
    return { recorded: true, outcome: "applied", link: {} };
  });
  return result;
}
