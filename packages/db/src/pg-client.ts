/**
 * The pg client of every pooled PostgreSQL connection (docs/operations.md#database-outages).
 * Two things pg leaves to its user, which a database restart or a network fault needs:
 * - a connection that dies while checked out (a restart resets it in the middle of a transaction) fails
 *   its queries with the error, and also emits `error` on the client; the pool listens only while the
 *   client is idle, so without a listener of its own that event would end the process;
 * - a statement that outlives its time-out (`query_timeout`) fails, but pg keeps the connection, and on a
 *   network that went silent it never answers again while the pool goes on handing it out: it is closed
 *   instead, so the pool replaces it with a new connection.
 */
import pg from "pg";

const timedOut = "Query read timeout";

export class PooledClient extends pg.Client {
  constructor(config?: pg.ClientConfig) {
    super(config);
    // The queries of the dead connection already carry the error; the pool discards the client on release.
    this.on("error", () => undefined);
    // pg's overloads are many; every form ends in a callback or a promise, both followed here.
    const query = super.query.bind(this) as (...args: unknown[]) => unknown;
    this.query = ((...args: unknown[]) => {
      const last = args.length - 1;
      const callback = args[last];
      if (typeof callback === "function") {
        args[last] = (error: unknown, result: unknown) => {
          this.closeIfTimedOut(error);
          (callback as (error: unknown, result: unknown) => void)(error, result);
        };
      }
      const answer = query(...args);
      if (answer instanceof Promise) answer.catch((error: unknown) => this.closeIfTimedOut(error));
      return answer;
    }) as pg.Client["query"];
  }

  private closeIfTimedOut(error: unknown): void {
    if (!(error instanceof Error) || error.message !== timedOut) return;
    (this as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
  }
}
