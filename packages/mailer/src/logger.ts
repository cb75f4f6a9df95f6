/**
 * The slice of a pino/Fastify logger the mailer uses: structured fields first, then a message.
 * Any pino logger (or `app.log`) fits.
 */
export interface MailLogger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}
