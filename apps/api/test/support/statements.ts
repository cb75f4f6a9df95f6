/**
 * Every statement the service's pg clients send, seen from the pg module itself (the db package's and
 * the one Prisma's adapter loads): what a request costs in round trips, and which of them went through
 * Prisma (its adapter asks pg for rows as arrays; the db package's plain clients never do).
 */
import { createRequire } from "node:module";
import { afterAll, beforeAll } from "vitest";

export interface SeenStatement {
  text: string;
  viaPrisma: boolean;
  /** Sent as a prepared statement (by name: its text is parsed once per connection). */
  prepared: boolean;
}

type QueryMethod = (...args: unknown[]) => unknown;

const dbRequire = createRequire(new URL("../../../../packages/db/package.json", import.meta.url));
const pgCopies = [...new Set([dbRequire("pg"), createRequire(dbRequire.resolve("@prisma/adapter-pg"))("pg")])] as { Client: { prototype: { query: QueryMethod } } }[];

/**
 * What runs beside a request rather than in it: the webhook worker's claim of due deliveries (its poll,
 * or the nudge of a settlement) and its record of an attempt, and the mail and SMS outbox workers
 * claiming and marking what an earlier request queued. A request's own queueing (an INSERT into an outbox) is still seen.
 */
const backgroundWork = [
  /^WITH picked AS \(.*\bwebhook_deliveries\b/,
  /^WITH attempt AS \( INSERT INTO webhook_attempts\b/,
  /^(?!INSERT\b).*\b(mail_outbox|sms_outbox)\b/,
  // The payment status listener's own connection (runtime/status-notices.ts).
  /^(LISTEN mteja_payment_status|SELECT 1 AS listener_heartbeat)$/,
];

/** Whether a statement (whitespace collapsed) is a background worker's, not the request's. */
export function isBackgroundWork(text: string): boolean {
  return backgroundWork.some((pattern) => pattern.test(text));
}

/**
 * Installs the watch for the suite; `start()` begins a recording, `stop()` ends it and returns what was
 * sent meanwhile, the background workers' statements left out.
 */
export function watchStatements(): { start: () => void; stop: () => SeenStatement[] } {
  let seen: SeenStatement[] | undefined;
  const originals = pgCopies.map((pg) => pg.Client.prototype.query);
  beforeAll(() => {
    pgCopies.forEach((pg, i) => {
      const original = originals[i]!;
      pg.Client.prototype.query = function (this: unknown, ...args: unknown[]) {
        const config = args[0] as string | { text?: string; rowMode?: string; name?: string } | undefined;
        const text = typeof config === "string" ? config : config?.text;
        const asObject = typeof config === "object" ? (config as { rowMode?: string; name?: string }) : undefined;
        seen?.push({ text: String(text).replace(/\s+/g, " ").trim(), viaPrisma: asObject?.rowMode === "array", prepared: typeof asObject?.name === "string" });
        return original.apply(this, args);
      };
    });
  });
  afterAll(() => pgCopies.forEach((pg, i) => (pg.Client.prototype.query = originals[i]!)));
  return {
    start: () => {
      seen = [];
    },
    stop: () => {
      const recorded = seen ?? [];
      seen = undefined;
      return recorded.filter((statement) => !isBackgroundWork(statement.text));
    },
  };
}
