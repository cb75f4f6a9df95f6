/**
 * A text not sent, to be tried again later. `providerUnavailable` says the failure is the provider's
 * (unreachable, refusing our key, answering garbage), not this text's, so the rest of a batch would
 * fail the same way.
 */
export class SmsDeliveryError extends Error {
  override readonly name = "SmsDeliveryError";
  readonly providerUnavailable: boolean;

  constructor(message: string, opts: { providerUnavailable: boolean; cause?: unknown }) {
    super(message, { cause: opts.cause });
    this.providerUnavailable = opts.providerUnavailable;
  }
}

const MAX_ERROR_LENGTH = 300;

/** A short, storable description of a send error; never the text itself (it carries a code). */
export function describeSmsError(error: unknown): string {
  const raw = error instanceof Error ? (error instanceof SmsDeliveryError ? error.message : `${error.name}: ${error.message}`) : "Unknown error";
  return raw.replace(/\s+/g, " ").trim().slice(0, MAX_ERROR_LENGTH);
}
