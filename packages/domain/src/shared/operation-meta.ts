/**
 * The facts of one operation, declared once on its procedure (`.meta({ ... })` or implied by the
 * procedure builder of trpc.ts). The transports, the OpenAPI document, the abuse limits and the
 * metrics read them from here; nothing keeps a table of operations by path or name.
 */
import type { TenantDb } from "@mteja/db";
import type { AnyRouter } from "@trpc/server";
import type { ZodObject } from "zod";
import type { CaptchaFlow } from "./tenant-settings.js";

/**
 * What proves who is calling: nothing, an access token (`Authorization: Bearer`), the HttpOnly
 * refresh cookie, the operator's ADMIN_API_KEY, a tenant's API key (`Bearer mk_…`, a shop's server), or
 * either of a tenant's API key and the access token of one of its admins (`apiKeyOrAdmin`). Set by the procedure builders (trpc.ts), so the
 * documented credential cannot disagree with the middleware that checks it.
 */
export type Credential = "none" | "bearer" | "refreshCookie" | "adminKey" | "apiKey" | "apiKeyOrAdmin";

/**
 * A sign-in step, by the way in: email and password, an SMS code, a passkey, Google; then, with
 * two-factor after any of them, the code ("otp").
 */
export type SignInStep = "password" | "otp" | "sms" | "passkey" | "google";

/**
 * An operation on its way out (docs/api-versioning.md): both transports answer it with the
 * `Deprecation` and `Sunset` headers, and the OpenAPI document marks it deprecated.
 */
export interface Deprecation {
  /** The day it was deprecated, an ISO date ("2026-11-25"): the `Deprecation` header. */
  since: string;
  /** The day after which it may stop answering, an ISO date at least six months after `since`: the `Sunset` header. */
  sunset: string;
  /** What to call instead, e.g. "POST /api/v1/payments/stk" (in the document's description). */
  replacement?: string;
}

/**
 * A sensitive operation (docs/step-up.md). On a session that is not fresh (past its `fresh_until`) it
 * answers 403 STEP_UP_REQUIRED, except:
 * - `"always"`: no exception (otp/setup, otp/verify, the export: they take no proof of their own);
 * - `{ orBodyProof: "current_password" }`: the body carries the proof the operation already takes,
 *   complete: the named password field — or `sms_code` (texted to the verified phone) for an account
 *   without a password — and, while two-factor is on, `code`. The operation verifies them all against
 *   the account's factors before it changes anything, as it does on a fresh session;
 * - `{ when: condition }`: only the calls the condition finds sensitive need a fresh session, and no body
 *   proof stands in for it (me/phone/start and me/phone/verify for a phone other than the verified one).
 * One line on the procedure; checked by one function of trpc.ts on the session row the credential
 * check has already read, so an operation without it does no work for it.
 */
export type StepUp = "always" | { orBodyProof: PasswordField } | { when: StepUpCondition };

/** The name of the password field of an operation's input. */
export type PasswordField = "password" | "current_password";

/** The account a step-up decision is about, read only when the session is not fresh. */
export interface StepUpAccount {
  id: string;
  tenantId: string;
  email: string | null;
  phone: string | null;
  phoneVerified: boolean;
  otpEnabled: boolean;
  hasPassword: boolean;
  /** A guest checkout's account: no factor to prove, so no step-up (docs/step-up.md). */
  isGuest: boolean;
}

/** What a condition is given: the account, the input as sent (not yet validated) and the tenant's data. */
export interface StepUpCall {
  account: StepUpAccount;
  input: unknown;
  db: TenantDb;
}

/**
 * True when this call of the operation is sensitive. The input has not been validated yet: when it
 * cannot tell, a condition answers true (a fresh session is asked for, never wrongly waived). Its
 * `description` completes "needs a fresh session when …" in the OpenAPI document.
 */
export interface StepUpCondition {
  (call: StepUpCall): boolean | Promise<boolean>;
  readonly description: string;
}

/** A condition of step-up with the words the OpenAPI document says it in. */
export function stepUpCondition(description: string, sensitive: (call: StepUpCall) => boolean | Promise<boolean>): StepUpCondition {
  return Object.assign((call: StepUpCall) => sensitive(call), { description });
}

/**
 * What a procedure with a REST path declares in `.meta({ openapi })`: `method`, `path`, `summary` (one
 * line, required: a test fails without it), and `errorResponses` for the codes its own rules answer
 * (`{ 409: "USER_EXISTS" }`). The document derives the rest: `operationId` from the procedure's path,
 * the errors its credential, tenant header, input and `ipLimited` imply, and examples from the schemas
 * (a zod field's `.meta({ examples })` wins over the document's examples by field name). The domain's
 * own words: the REST adapter (apps/api/src/http/rest/) hands them to its OpenAPI library.
 */
export interface RestRoute {
  method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
  /** The path, `{name}` for a path parameter of the input. */
  path: `/${string}`;
  summary?: string;
  description?: string;
  tags?: string[];
  /** Headers the operation reads (X-Tenant-ID, Idempotency-Key), documented as parameters. */
  requestHeaders?: ZodObject;
  /** The description of the success answer. */
  successDescription?: string;
  /** The codes of the operation's own rules, by status (`{ 409: "USER_EXISTS" }`). */
  errorResponses?: Record<number, string>;
}

/**
 * A success answered as a file, not the JSON envelope: the procedure returns a `StreamedFile`
 * (shared/streamed-file.ts), the REST adapter streams it in this media type, and the document shows it so
 * (described by `openapi.successDescription`).
 */
export interface FileAnswer {
  mediaType: "text/csv";
  /** A small file as the operation answers it, the document's example. */
  example: string;
}

// A type, not an interface: adapters read meta as a plain record of facts (an implicit index signature).
export type OperationMeta = {
  /** The operation's REST path and its OpenAPI description; without it, tRPC only. */
  openapi?: RestRoute;
  credential?: Credential;
  /** Counted against the caller's IP (docs/limits.md): the unauthenticated auth operations only. */
  ipLimited?: boolean;
  /** A success answers 201 Created (the operation creates a resource) instead of 200. */
  successStatus?: 201;
  /**
   * The operation may answer 202 Accepted (the domain calls `request.markAccepted()`): taken, outcome
   * not known yet. The text describes that answer in the OpenAPI document.
   */
  acceptedDescription?: string;
  /** The operation is a sign-in step; its outcome is reported through `deps.events.signIn`. */
  signInStep?: SignInStep;
  /** The operation is deprecated: answered with `Deprecation` and `Sunset` headers until its sunset. */
  deprecated?: Deprecation;
  /** A sensitive operation: it needs a fresh session or a complete body proof (docs/step-up.md). */
  stepUp?: StepUp;
  /** The success is a file streamed in a media type of its own (a report's CSV), not the JSON envelope. */
  answers?: FileAnswer;
  /**
   * The success sends the browser elsewhere (Sign in with Google): the procedure returns `{ location }`,
   * which REST answers as 302 with that Location (tRPC as JSON); described, with an example Location.
   */
  redirects?: { description: string; example: string };
  /**
   * A guest's access token (`role: "guest"`, docs/sign-in.md#guest-checkout) may call it; on every other
   * operation with a bearer credential a guest answers 403 FORBIDDEN (checked by the builders of trpc.ts).
   */
  guestAllowed?: true;
  /**
   * The flow of `settings.captcha` this operation belongs to: where the shop says "always", it needs a
   * CAPTCHA token in `X-Captcha-Token` (403 CAPTCHA_REQUIRED, 503 CAPTCHA_UNAVAILABLE; auth/captcha/).
   */
  captcha?: CaptchaFlow;
  /**
   * A server operation on live money only (docs/test-mode.md#live-only): a test key (`mk_test_…`)
   * answers 403 FORBIDDEN. Read by the API-key builders of trpc.ts.
   */
  liveOnly?: true;
};

/** The declared facts of a procedure by its tRPC path ("auth.register"), if it exists. */
export function operationMetaOf(router: AnyRouter, procedurePath: string): OperationMeta | undefined {
  const procedures = router._def.procedures as Record<string, { _def?: { meta?: OperationMeta } } | undefined>;
  return Object.hasOwn(procedures, procedurePath) ? procedures[procedurePath]?._def?.meta : undefined;
}

/** Every procedure of the router with its declared facts. */
export function operationMetas(router: AnyRouter): Array<[procedurePath: string, meta: OperationMeta]> {
  const procedures = router._def.procedures as Record<string, { _def?: { meta?: OperationMeta } }>;
  return Object.entries(procedures).flatMap(([name, procedure]) => (procedure._def?.meta ? [[name, procedure._def.meta] as [string, OperationMeta]] : []));
}
