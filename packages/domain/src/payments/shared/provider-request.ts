/**
 * A request to Daraja that must happen at most once: the STK push, the B2C payout and the refund (a
 * Reversal or a B2C payment; docs/mpesa.md "Idempotency-Key", "Unknown outcomes" and "Refunds").
 *
 * The row is stored, under the Idempotency-Key when there is one, before Daraja is called. A retry
 * with a used key replays that row: it waits while the first request is still in flight and never
 * calls Daraja a second time. Daraja refusing the request, or the request never leaving, marks the
 * row failed and answers the error (502 / 503); any other failure proves nothing, so the row stays
 * open for its callback or a query and the stored answer (202) is returned.
 */
import { isUniqueViolation } from "@mteja/db";
import { DarajaError } from "@mteja/daraja";
import type { CountedPoints } from "../../shared/abuse-limits.js";
import { certainlyNotActedOn, lastErrorOf, replayedError, toProviderError, unknownOutcomeNote } from "./provider-errors.js";
import { keyReusedError } from "./request-rules.js";
import { waitWhileInFlight, type InFlightWait } from "./in-flight-wait.js";

/** The columns every request row has. */
export interface StoredRequest {
  createdAt: Date;
  lastError: string | null;
}

/** What one kind of request (STK push, B2C payout) does at each step; `Ack` is Daraja's acknowledgement. */
export interface ProviderRequest<Row extends StoredRequest, Ack, Answer> {
  idempotencyKey: string | undefined;
  findByKey(idempotencyKey: string): Promise<Row | null>;
  /** Counts a request that may reach Daraja (a replay does not), before its row is stored. */
  count?(): Promise<CountedPoints>;
  /** Stores the new row; a second row under the same key fails on the unique index. */
  store(): Promise<Row>;
  /** A retry must carry the first request's body. */
  sameRequest(row: Row): boolean;
  /** Still waiting for Daraja's answer to the first request. */
  inFlight(row: Row): boolean;
  reload(row: Row): Promise<Row>;
  /** Daraja refused the request, or it was never sent: a retry answers the same error. */
  refusedOrNeverSent(row: Row): boolean;
  /** The answer the stored row gives (a 202 while Daraja's acknowledgement is unknown). */
  storedAnswer(row: Row): Answer;
  /** Calls Daraja; a failure in here is classified (refused, never sent, or unknown). */
  call(row: Row): Promise<Ack>;
  /** Records Daraja's acknowledgement and answers it. */
  accepted(row: Row, ack: Ack): Promise<Answer>;
  markFailed(row: Row, lastError: string): Promise<void>;
  /** The request may have reached Daraja: the row stays open, never to be sent again. */
  markUnknown(row: Row, lastError: string): Promise<void>;
}

export type InFlightTiming = Pick<InFlightWait<never>, "clock" | "inFlightSeconds">;

export async function requestOnce<Row extends StoredRequest, Ack, Answer>(request: ProviderRequest<Row, Ack, Answer>, timing: InFlightTiming): Promise<Answer> {
  const key = request.idempotencyKey;
  if (key) {
    const existing = await request.findByKey(key);
    if (existing) return replay(request, existing, timing);
  }

  const counted = await request.count?.();
  let row: Row;
  try {
    row = await request.store();
  } catch (error) {
    // Two requests with one key at once: the second answers what the first did.
    if (key && isUniqueViolation(error)) {
      const existing = await request.findByKey(key);
      if (existing) {
        await counted?.refund();
        return replay(request, existing, timing);
      }
    }
    throw error;
  }

  let ack: Ack;
  try {
    ack = await request.call(row);
  } catch (error) {
    if (error instanceof DarajaError && certainlyNotActedOn(error)) {
      await request.markFailed(row, lastErrorOf(error));
      throw toProviderError(error);
    }
    await request.markUnknown(row, unknownOutcomeNote(error));
    return request.storedAnswer(await request.reload(row));
  }
  return request.accepted(row, ack);
}

/** A retry with a used Idempotency-Key: the first request's answer (or error), never a second call. */
async function replay<Row extends StoredRequest, Ack, Answer>(request: ProviderRequest<Row, Ack, Answer>, existing: Row, timing: InFlightTiming): Promise<Answer> {
  if (!request.sameRequest(existing)) throw keyReusedError();
  const row = await waitWhileInFlight(existing, { ...timing, inFlight: (r) => request.inFlight(r), reload: () => request.reload(existing) });
  if (request.refusedOrNeverSent(row)) throw replayedError(row.lastError);
  return request.storedAnswer(row);
}
