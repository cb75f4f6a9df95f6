/**
 * The one list of errors that mean "the database is away for a moment" (a restart, a failover, a
 * network fault, a time-out) rather than "this request or this code is wrong". The API answers them 503
 * SERVICE_UNAVAILABLE with Retry-After (docs/errors.md), workers try again on their next run, and
 * nothing else in the code base reads drivers' error codes for this.
 *
 * Errors reach callers in four shapes, all read here: Node's socket errors (`code` ECONNREFUSED…), the
 * server's SQLSTATE (`code` 57P01…), pg's own errors that have only a message ("Connection terminated
 * unexpectedly", "Query read timeout"), and Prisma's (P1001… on the error, or the driver adapter's
 * `kind` and the original error in `meta.driverAdapterError` / `cause`).
 */

/** Node's socket errors: the server refused, reset or never answered the connection. */
const socketCodes: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EHOSTDOWN",
  "ENETDOWN",
  // A name that does not resolve for a moment (a failover moving the DNS record).
  "ENOTFOUND",
  "EAI_AGAIN",
]);

/**
 * PostgreSQL's SQLSTATEs of a server going away or not taking work yet: 57P01 admin_shutdown (a
 * restart), 57P02 crash_shutdown, 57P03 cannot_connect_now (starting up or in recovery), 57P05
 * idle_session_timeout, 53300 too_many_connections, 57014 query_canceled (statement_timeout), 25006
 * read_only_sql_transaction (a write that reached a standby during a failover); class 08 (connection
 * exception) is matched by its prefix.
 */
const serverCodes: ReadonlySet<string> = new Set(["57P01", "57P02", "57P03", "57P05", "53300", "57014", "25006"]);

/**
 * Prisma's codes for the same: P1001 cannot reach, P1002 timed out reaching, P1008 operation timed out,
 * P1017 the server closed the connection, P2024 timed out taking a connection from the pool, P2037 too
 * many connections; and P2028 (an interactive transaction's API error) when it could not start in its
 * `maxWait` or ran past its `timeout`, which is how a transaction meets a database that stopped answering
 * (its other causes are the code's own).
 */
const prismaCodes: ReadonlySet<string> = new Set(["P1001", "P1002", "P1008", "P1017", "P2024", "P2037"]);
const expiredTransaction = /in the given time|on an expired transaction/;

/** The driver adapter's kinds for them (@prisma/driver-adapter-utils), carried on a Prisma error's meta. */
const adapterKinds: ReadonlySet<string> = new Set([
  "DatabaseNotReachable",
  "ConnectionClosed",
  "SocketTimeout",
  "TooManyConnections",
]);

/** pg's errors that carry no code (pg and pg-pool 8.x). */
const pgMessages: readonly RegExp[] = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect$/,
  /^Query read timeout$/,
  /^Client has encountered a connection error and is not queryable$/,
  /^Connection unexpectedly closed$/,
];

/** How deep `cause` chains are followed (they are short; a cycle must not loop). */
const depthMax = 6;

/** True when `error`, or an error it wraps, says the database is away for a moment. */
export function isDatabaseUnavailable(error: unknown): boolean {
  return unavailableAt(error, 0);
}

/** The fields of the error shapes above (Node, pg, Prisma, the driver adapter), all optional. */
interface ErrorFields {
  code?: unknown;
  originalCode?: unknown;
  kind?: unknown;
  message?: unknown;
  cause?: unknown;
  errors?: unknown;
  meta?: unknown;
}

function unavailableAt(error: unknown, depth: number): boolean {
  if (typeof error !== "object" || error === null || depth > depthMax) return false;
  const fields = error as ErrorFields;
  const message = typeof fields.message === "string" ? fields.message : "";
  if (typeof fields.code === "string" && codeSaysUnavailable(fields.code)) return true;
  if (fields.code === "P2028" && expiredTransaction.test(message)) return true;
  if (typeof fields.originalCode === "string" && codeSaysUnavailable(fields.originalCode)) return true;
  if (typeof fields.kind === "string" && adapterKinds.has(fields.kind)) return true;
  if (pgMessages.some((pattern) => pattern.test(message))) return true;
  // An AggregateError: every address of the host refused (IPv4 and IPv6).
  if (Array.isArray(fields.errors) && fields.errors.some((inner) => unavailableAt(inner, depth + 1))) return true;
  const adapterError = (fields.meta as { driverAdapterError?: unknown } | undefined)?.driverAdapterError;
  if (adapterError !== undefined && unavailableAt(adapterError, depth + 1)) return true;
  return unavailableAt(fields.cause, depth + 1);
}

function codeSaysUnavailable(code: string): boolean {
  return socketCodes.has(code) || serverCodes.has(code) || /^08[0-9A-Z]{3}$/.test(code) || prismaCodes.has(code);
}
