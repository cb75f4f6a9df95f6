import argon2 from "argon2";
import { DomainError } from "../errors.js";

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /** False for a wrong password; unknown users are verified against a decoy so timing matches. */
  verify(hash: string | undefined, password: string): Promise<boolean>;
}

export interface PasswordHasherOptions {
  /** Hashes running at once; the rest wait in line. */
  concurrency: number;
  /** Hashes allowed to wait; past this the request is shed with RATE_LIMITED. */
  maxQueue: number;
}

// OWASP Password Storage Cheat Sheet, argon2id first option.
const owasp = { type: argon2.argon2id, memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

/**
 * argon2id runs on libuv's thread pool, which competes with the event loop for the same cores; a
 * bounded queue keeps a login storm from starving every other request (stack-notes.md).
 */
export async function createPasswordHasher(options: PasswordHasherOptions): Promise<PasswordHasher> {
  const gate = createGate(options.concurrency, options.maxQueue);
  const decoy = await argon2.hash("decoy-password-for-unknown-users", owasp);
  return {
    hash: (password) => gate(() => argon2.hash(password, owasp)),
    verify: (hash, password) =>
      gate(async () => {
        try {
          const ok = await argon2.verify(hash ?? decoy, password);
          return hash !== undefined && ok;
        } catch {
          return false;
        }
      }),
  };
}

function createGate(concurrency: number, maxQueue: number) {
  let running = 0;
  const waiting: Array<() => void> = [];
  return async function run<T>(task: () => Promise<T>): Promise<T> {
    if (running >= concurrency) {
      if (waiting.length >= maxQueue) {
        throw new DomainError("RATE_LIMITED", "Too many sign-in attempts are being processed; try again shortly.", {
          retryAfter: 1,
        });
      }
      // The finishing task hands its slot straight to the next in line.
      await new Promise<void>((resolve) => waiting.push(resolve));
    } else {
      running++;
    }
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}
