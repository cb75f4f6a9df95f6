import type { HashTurn, Logger, PasswordHashing } from "@mteja/domain";
import { fork, type ChildProcess } from "node:child_process";
import { setPriority } from "node:os";
import { fileURLToPath } from "node:url";
import { argon2Parameters } from "./argon2-parameters.js";

/** Plain JavaScript next to this module, in src as in dist, so tests fork the same file production does. */
const childEntry = fileURLToPath(new URL("./argon2-child.mjs", import.meta.url));

export interface ProcessHashingOptions {
  /** Hashing processes of each priority (each computes one hash at a time). */
  size: number;
  logger: Pick<Logger, "warn">;
  /**
   * Added to the nice value of the children that run queued hashes (HashTurn): under a storm the kernel
   * serves the service's event loop before them. A hash that started without waiting runs in a child at
   * the service's own priority.
   */
  niceness?: number;
  /** A child that has not answered a hash by then is killed (its hashes fail) rather than left hanging. */
  answerTimeoutMs?: number;
}

export interface ProcessHashing extends PasswordHashing {
  /** The ids of the hashing processes running now. */
  pids(): number[];
  /** Ends the hashing processes; hashes still running fail. */
  close(): Promise<void>;
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

interface Slot {
  child: ChildProcess | undefined;
  inFlight: Map<number, Pending>;
  niceness: number;
}

type Answer = { id: number; value: unknown } | { id: number; error: string };

/**
 * argon2id in child processes, each started when a hash first needs it. A hash that waited in line (a
 * login storm) runs in a child at a lower OS priority, so the storm takes the CPU the event loop leaves
 * over instead of sharing it equally; one that started at once (an ordinary sign-in) runs in a child at
 * the service's own priority, so it does not wait behind every burst of reads. A child that dies fails
 * its hashes at once and is replaced by the next hash that needs it.
 */
export function createProcessHashing({ size, logger, niceness = 10, answerTimeoutMs = 30_000 }: ProcessHashingOptions): ProcessHashing {
  const slotsOf = (slotNiceness: number): Slot[] => Array.from({ length: size }, () => ({ child: undefined, inFlight: new Map(), niceness: slotNiceness }));
  const prompt = slotsOf(0);
  // At niceness 0 a queued hash runs as one that started at once: the same children serve both.
  const queued = niceness === 0 ? prompt : slotsOf(niceness);
  const slots = queued === prompt ? prompt : [...prompt, ...queued];
  let lastId = 0;
  let closed = false;

  function start(slot: Slot): ChildProcess {
    // No inherited execArgv: the service's --cpu-prof or --inspect is not the children's.
    const child = fork(childEntry, [JSON.stringify(argon2Parameters)], { execArgv: [], stdio: ["ignore", "inherit", "inherit", "ipc"] });
    slot.child = child;
    if (child.pid !== undefined && slot.niceness !== 0) {
      try {
        setPriority(child.pid, slot.niceness);
      } catch (error) {
        logger.warn({ err: error, pid: child.pid }, "could not lower the priority of a password hashing process");
      }
    }
    // Idle children never keep the service alive; a channel with hashes in flight does (see idle()).
    child.unref();
    idle(child);
    child.on("message", (answer: Answer) => {
      const pending = slot.inFlight.get(answer.id);
      if (!pending) return;
      slot.inFlight.delete(answer.id);
      if (slot.inFlight.size === 0) idle(child);
      if ("error" in answer) pending.reject(new Error(`password hashing failed: ${answer.error}`));
      else pending.resolve(answer.value);
    });
    const lost = (reason: string) => {
      if (slot.child !== child) return;
      slot.child = undefined;
      const error = new Error(`the password hashing process ${reason}`);
      for (const pending of slot.inFlight.values()) pending.reject(error);
      slot.inFlight.clear();
      if (!closed) logger.warn({ pid: child.pid, reason }, "a password hashing process stopped; the next hash starts another");
    };
    child.on("exit", (code, signal) => lost(`exited (${signal ?? code})`));
    child.on("error", (error) => lost(`failed: ${error.message}`));
    return child;
  }

  function idle(child: ChildProcess) {
    (child.channel as { unref?(): void } | undefined)?.unref?.();
  }

  function leastBusy(turn: HashTurn | undefined): Slot {
    const group = turn?.queued === false ? prompt : queued;
    return group.reduce((best, slot) => (slot.inFlight.size < best.inFlight.size ? slot : best));
  }

  function request(message: { op: "hash"; password: string } | { op: "verify"; hash: string; password: string }, turn: HashTurn | undefined): Promise<unknown> {
    if (closed) return Promise.reject(new Error("the password hashing pool is closed"));
    const slot = leastBusy(turn);
    const child = slot.child ?? start(slot);
    const id = ++lastId;
    return new Promise((resolve, reject) => {
      const stuck = setTimeout(() => {
        logger.warn({ pid: child.pid, answerTimeoutMs }, "a password hashing process did not answer in time; killing it");
        child.kill("SIGKILL");
      }, answerTimeoutMs);
      stuck.unref();
      const settled = () => clearTimeout(stuck);
      slot.inFlight.set(id, {
        resolve: (value) => (settled(), resolve(value)),
        reject: (error) => (settled(), reject(error)),
      });
      (child.channel as { ref?(): void } | undefined)?.ref?.();
      child.send({ id, ...message }, (error) => {
        if (error && slot.inFlight.delete(id)) {
          clearTimeout(stuck);
          reject(error);
        }
      });
    });
  }

  return {
    hash: async (password, turn) => String(await request({ op: "hash", password }, turn)),
    verify: async (hash, password, turn) => (await request({ op: "verify", hash, password }, turn)) === true,
    pids: () => slots.flatMap((slot) => (slot.child?.pid === undefined ? [] : [slot.child.pid])),
    close: async () => {
      closed = true;
      await Promise.all(slots.map((slot) => (slot.child ? stop(slot.child) : undefined)));
    },
  };
}

/** Disconnecting ends a child (argon2-child.mjs exits); one that has not ended in 2 s is killed. */
function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const kill = setTimeout(() => child.kill("SIGKILL"), 2_000);
    child.once("exit", () => {
      clearTimeout(kill);
      resolve();
    });
    if (child.connected) child.disconnect();
    else child.kill("SIGTERM");
  });
}
