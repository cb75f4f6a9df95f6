const MAX_ERROR_LENGTH = 300;

/**
 * A failed send, described without the mail's body. `serverUnavailable` says the failure is the
 * mail server's (unreachable, timed out, refused our login), not this mail's, so the rest of a
 * batch would fail the same way.
 */
export class MailDeliveryError extends Error {
  override readonly name = "MailDeliveryError";
  readonly serverUnavailable: boolean;

  constructor(message: string, opts: { serverUnavailable: boolean; cause?: unknown }) {
    super(message, { cause: opts.cause });
    this.serverUnavailable = opts.serverUnavailable;
  }
}

/**
 * A short, storable description of a send error. Servers sometimes echo parts of what they were
 * sent in their replies, so anything shaped like a token is cut out before it reaches a log or
 * the outbox table.
 */
export function describeError(error: unknown): string {
  const raw =
    error instanceof MailDeliveryError
      ? error.message
      : error instanceof Error
        ? `${codeOf(error) ?? error.name}: ${error.message}`
        : "Unknown error";
  return redactSecrets(raw.replace(/\s+/g, " ").trim()).slice(0, MAX_ERROR_LENGTH);
}

export function redactSecrets(text: string): string {
  return text
    .replace(/([?&](?:token|code|secret)=)[^&\s"'<>]*/gi, "$1[redacted]")
    .replace(/\b[0-9a-f]{32,}\b/gi, "[redacted]");
}

export function codeOf(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null || !("code" in error)) return undefined;
  const code = (error as { code: unknown }).code;
  return typeof code === "string" ? code : undefined;
}
