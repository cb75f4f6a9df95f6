/**
 * What a payment flow declares, once, in its own folder (`<flow>/flow.ts`), for payments/flows.ts to
 * list: each callback Daraja makes to it (its path, where its URL comes from, how its body is read and
 * applied, how it is answered and documented) and the reconciler's sweeps. The callback route, the
 * callback URL settings, the dispatcher, the OpenAPI document and the dev start's simulator wiring are
 * all derived from the list (docs/mpesa.md#the-flow-registry), so a new Daraja API is one flow folder and
 * one line there.
 */
import type { callbacks } from "@mteja/db";
import type { OwnText } from "@mteja/i18n";
import type { ZodType } from "zod";
import { tenantCallbackUrl, type CallbackAuthority } from "./callback-tokens.js";
import type { SweepRun } from "./leased-sweep.js";
import type { DarajaPorts } from "./daraja-ports.js";
import type { PaymentPorts } from "./ports.js";
import type { StoredApplyResult } from "./stored-callback.js";

/** Where Daraja's callbacks arrive; a callback's `path` is below it. */
export const CALLBACK_ROUTE_PREFIX = "/api/momo/callback";

/** The answer to a callback once applied, unless its flow says otherwise. */
export const ACCEPTED_ANSWER = { ResultCode: 0, ResultDesc: "Accepted" } as const;

/**
 * Where a callback's URL comes from, in this order: its setting; else, when `besides` is given, the URL
 * of that callback of the same flow with that callback's path turned into this one's (as
 * `/b2c/result` → `/b2c/status`); else, with `publicDefault`, the service's public callback address
 * (PUBLIC_URL's /api/momo/callback, else MOMO_CALLBACK_URL without its /stkpush) and the path. A flow
 * is configured when every one of its callbacks has a URL.
 */
export interface CallbackUrlRule {
  /** The setting that gives it (e.g. MOMO_REVERSAL_RESULT_URL); none: always derived. */
  setting?: string;
  /** The kind of the callback whose URL it is derived from when its setting is unset. */
  besides?: string;
  /** Derived from the public callback address when neither gives it. */
  publicDefault?: boolean;
}

/** How the OpenAPI document describes the callback's operation (apps/api/src/http/daraja-callbacks.ts adds the rest). */
export interface CallbackDoc {
  summary: string;
  /** What the body is and what it does, after "Called by Daraja, not by clients." */
  body: string;
  /** Its 200 answer when not `ACCEPTED_ANSWER`. */
  answered?: { description: string; schema: ZodType };
}

/** What the query string of a callback's URL carried besides its token. */
export interface ReceivedWith {
  /** `ref=` as received (STK: the prompt's AccountReference, hex). */
  reference?: string | undefined;
  /** `intent=1` (STK: the prompt paid an intent, whose settlement takes locks: no read without them first). */
  paysIntent?: boolean | undefined;
}

/** A callback as stored, verbatim, before it is applied. */
export interface StoredCallback {
  id: string;
  receivedAt: Date;
  /** STK: the AccountReference its URL's `ref=` carried. */
  accountReference: string | null;
  /** The tenant whose token its URL carried; null: the shared secret (docs/mpesa.md#callback-tokens). */
  tokenTenantId: string | null;
}

/** What handling a stored callback came to. */
export type CallbackHandling =
  /** Applied once through shared/stored-callback.ts; a C2B payment no intent took is `keptUnmatched`. */
  | { applied: StoredApplyResult; keptUnmatched?: boolean }
  /** Nothing to apply, only an answer (a C2B validation); `note` is kept on the stored row (a rejection's code). */
  | { answered: unknown; note?: string | undefined }
  /** Its token does not speak for what it names: refused (403), nothing answered to Daraja. */
  | { refused: string };

/** A callback's body as read: what to store with it, and how to handle it once stored. */
export interface ReadCallback {
  ok: true;
  /** The id stored with it (momo_callbacks.correlation_id): what it names at Daraja. */
  correlationId: string | null;
  /** STK: the AccountReference of the prompt, from `ref=`. */
  accountReference?: string | undefined;
  /** Stores it in a statement that also reads what `handle` needs first (`StoreReading`); none: stored alone. */
  store?: ((deps: PaymentPorts, insert: callbacks.StoredCallbackInsert) => Promise<string>) | undefined;
  handle(deps: PaymentPorts, stored: StoredCallback, authority: CallbackAuthority): Promise<CallbackHandling>;
}

/**
 * Stores a callback (`insert`) in one statement with the read its apply starts with, saving a round trip
 * on every callback: the stored row's id, and what the read found (as of the store), for `apply`.
 */
export type StoreReading<Read> = (deps: PaymentPorts, insert: callbacks.StoredCallbackInsert) => Promise<{ id: string; read: Read }>;

export type ReadResult = ReadCallback | { ok: false; error: string };

/** One callback of a flow. */
export interface CallbackRoute {
  /** Below CALLBACK_ROUTE_PREFIX, e.g. `reversal/result`. */
  path: string;
  url: CallbackUrlRule;
  openapi: CallbackDoc;
  /** The answer once applied; default ACCEPTED_ANSWER. */
  answer?: unknown;
  /**
   * No money moves with it (a C2B validation, a balance): retention prunes it at its age whatever it came
   * to, where a callback that settled nothing may be the only record of money and is kept.
   */
  movesNoMoney?: boolean;
  /** Reads the parsed JSON body; an error makes it malformed (400, stored as such). */
  read(body: unknown, received: ReceivedWith): ReadResult;
}

/** A payment flow: one Daraja API (or a family of them) and what the service does with it. */
export interface DarajaFlow {
  /** The flow's folder under payments/. */
  name: string;
  /** Its callbacks by kind (the `kind` stored with each, the metrics' label). */
  callbacks: Readonly<Record<string, CallbackRoute>>;
  /** What the reconciler runs for it, in order (payments/reconciliation.ts). */
  sweeps?: readonly ((run: SweepRun) => Promise<void>)[];
  /**
   * Its own messages, declared in its folder instead of the catalogue (docs/i18n.md#a-flows-own-messages):
   * listed here so the registry's test holds them to the catalogue's rules.
   */
  messages?: Readonly<Record<string, OwnText>>;
}

/** A callback's body read into what its flow applies, and what is stored with it. */
export type Parse<Parsed> =
  | { ok: true; value: Parsed; correlationId: string | null; accountReference?: string | undefined }
  | { ok: false; error: string };

/**
 * Declares one callback: `parse` reads the body into what `apply` takes, and the pair is kept together
 * so the dispatcher never sees the flow's own types.
 */
export function defineCallback<Parsed, const Url extends CallbackUrlRule, Read = never>(declaration: {
  path: string;
  url: Url;
  openapi: CallbackDoc;
  answer?: unknown;
  movesNoMoney?: boolean;
  parse(body: unknown, received: ReceivedWith): Parse<Parsed>;
  /** The read `apply` starts with, done by the statement that stores the callback; none: stored alone, `read` undefined. */
  storeReading?(callback: Parsed): StoreReading<Read> | undefined;
  apply(deps: PaymentPorts, callback: Parsed, stored: StoredCallback, by: CallbackAuthority, read: Read | undefined): Promise<CallbackHandling>;
}): CallbackRoute & { url: Url } {
  const { parse, apply, storeReading, ...route } = declaration;
  return {
    ...route,
    read(body, received) {
      const parsed = parse(body, received);
      if (!parsed.ok) return parsed;
      const reading = storeReading?.(parsed.value);
      let read: Read | undefined;
      return {
        ok: true,
        correlationId: parsed.correlationId,
        accountReference: parsed.accountReference,
        store:
          reading &&
          (async (deps, insert) => {
            const stored = await reading(deps, insert);
            read = stored.read;
            return stored.id;
          }),
        handle: (deps, stored, authority) => apply(deps, parsed.value, stored, authority, read),
      };
    },
  };
}

/** A body read into a value that names its own correlation id, as `Parse` wants it. */
export function correlated<Value extends { correlationId: string | null }>(
  read: { ok: true; value: Value } | { ok: false; error: string },
): Parse<Value> {
  return read.ok ? { ok: true, value: read.value, correlationId: read.value.correlationId } : read;
}

/** Applies what a callback of a kind read to the stored callback `callbackId`, if its token speaks for it. */
export type ApplyKind<Parsed> = (
  deps: PaymentPorts,
  callbackId: string,
  authority: CallbackAuthority,
  callback: Parsed,
) => Promise<StoredApplyResult>;

/**
 * The callbacks of a flow whose kinds share one reader and one applier (payouts, refunds, the balance): a
 * declaration of one kind's callback, `parse(kind, body)` then `apply`, at its path, URL rule and document.
 */
export function kindCallback<Kind extends string, Parsed>(
  parse: (kind: Kind, body: unknown) => Parse<Parsed>,
  apply: ApplyKind<Parsed>,
  shared: { movesNoMoney?: boolean } = {},
) {
  return <const Url extends CallbackUrlRule>(kind: Kind, path: string, url: Url, openapi: CallbackDoc) =>
    defineCallback({
      path,
      url,
      openapi,
      ...shared,
      parse: (body) => parse(kind, body),
      apply: async (deps, callback: Parsed, stored, authority) => ({
        applied: await apply(deps, stored.id, authority, callback),
      }),
    });
}

/**
 * The URL Daraja is given for a callback of this kind in a tenant's request: the settings' own, with
 * the tenant's token and name (docs/mpesa.md#callback-tokens); null when its flow is not configured.
 */
export function callbackUrlFor(momo: Pick<DarajaPorts, "callbackTokens" | "settings">, kind: string, tenantId: string) {
  return tenantCallbackUrl(momo.callbackTokens, momo.settings.callbackUrls[kind] ?? null, tenantId);
}
