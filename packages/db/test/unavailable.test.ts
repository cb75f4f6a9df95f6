/**
 * The one list of "the database is away" errors (src/unavailable.ts), in each shape they reach callers:
 * Node's socket errors, the server's SQLSTATE, pg's code-less messages, Prisma's codes and the driver
 * adapter's kinds; and the errors that must stay what they are (a bug is a 500, a conflict a 409).
 */
import { describe, expect, it } from "vitest";
import { Prisma } from "../src/generated/prisma/client.js";
import { isDatabaseUnavailable } from "../src/unavailable.js";

const socketError = (code: string) =>
  Object.assign(new Error(`connect ${code} 127.0.0.1:5432`), { code, errno: -111, syscall: "connect" });
const serverError = (code: string, message = "terminating connection") =>
  Object.assign(new Error(message), { code, severity: "FATAL" });
const prismaError = (code: string, message = "x", meta?: Record<string, unknown>) =>
  new Prisma.PrismaClientKnownRequestError(message, { code, clientVersion: "7", ...(meta ? { meta } : {}) });

describe("isDatabaseUnavailable", () => {
  it("knows a refused, reset or unreachable connection (Node's codes, and every address of an AggregateError)", () => {
    for (const code of ["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "EHOSTUNREACH", "ENOTFOUND", "EAI_AGAIN"]) {
      expect(isDatabaseUnavailable(socketError(code)), code).toBe(true);
    }
    const everyAddress = new AggregateError([socketError("ECONNREFUSED"), socketError("ECONNREFUSED")]);
    expect(isDatabaseUnavailable(everyAddress)).toBe(true);
  });

  it("knows a server going away or not taking work yet (SQLSTATE 57P01, 57P03, class 08, …)", () => {
    for (const code of ["57P01", "57P02", "57P03", "08000", "08003", "08006", "08P01", "53300", "57014", "25006"]) {
      expect(isDatabaseUnavailable(serverError(code)), code).toBe(true);
    }
  });

  it("knows pg's errors that have only a message", () => {
    for (const message of [
      "Connection terminated unexpectedly",
      "Connection terminated due to connection timeout",
      "timeout exceeded when trying to connect",
      "Query read timeout",
      "Client has encountered a connection error and is not queryable",
    ]) {
      expect(isDatabaseUnavailable(new Error(message)), message).toBe(true);
    }
  });

  it("knows Prisma's codes, the driver adapter's kinds and the original error it carries", () => {
    for (const code of ["P1001", "P1002", "P1008", "P1017", "P2024", "P2037"]) {
      expect(isDatabaseUnavailable(prismaError(code)), code).toBe(true);
    }
    const notStarted = "Transaction API error: Unable to start a transaction in the given time.";
    expect(isDatabaseUnavailable(prismaError("P2028", notStarted))).toBe(true);
    const expired = "Transaction API error: A query cannot be executed on an expired transaction. The timeout …";
    expect(isDatabaseUnavailable(prismaError("P2028", expired))).toBe(true);
    const adapter = { driverAdapterError: { name: "DriverAdapterError", cause: { kind: "ConnectionClosed" } } };
    expect(isDatabaseUnavailable(prismaError("P2010", "raw query failed", adapter))).toBe(true);
    const shutdown = { driverAdapterError: { cause: { kind: "postgres", originalCode: "57P01", code: "57P01" } } };
    expect(isDatabaseUnavailable(prismaError("P2010", "raw query failed", shutdown))).toBe(true);
    expect(isDatabaseUnavailable(new Prisma.PrismaClientUnknownRequestError("x", { clientVersion: "7" }))).toBe(false);
    const wrapped = Object.assign(new Error("wrapped"), { cause: new Error("Connection terminated unexpectedly") });
    expect(isDatabaseUnavailable(wrapped)).toBe(true);
  });

  it("leaves every other error alone: conflicts, bad statements, a transaction misused, bugs", () => {
    expect(isDatabaseUnavailable(serverError("23505", "duplicate key value violates unique constraint"))).toBe(false);
    expect(isDatabaseUnavailable(serverError("42P01", 'relation "nope" does not exist'))).toBe(false);
    expect(isDatabaseUnavailable(prismaError("P2002"))).toBe(false);
    expect(isDatabaseUnavailable(prismaError("P2025"))).toBe(false);
    const misused = "Transaction already closed: A commit cannot be executed on a committed transaction.";
    expect(isDatabaseUnavailable(prismaError("P2028", misused))).toBe(false);
    expect(isDatabaseUnavailable(new TypeError("Cannot read properties of undefined"))).toBe(false);
    expect(isDatabaseUnavailable(undefined)).toBe(false);
    expect(isDatabaseUnavailable("ECONNREFUSED")).toBe(false);
    const cycle: { message: string; cause?: unknown } = { message: "loop" };
    cycle.cause = cycle;
    expect(isDatabaseUnavailable(cycle)).toBe(false);
  });
});
