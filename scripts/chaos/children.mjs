// The processes the chaos run starts (PostgreSQL excepted: pg_ctl owns it), each logging into a file of
// the run's directory, and stopped at the end whatever happened: every child is remembered until it exits.
import { spawn } from "node:child_process";
import { createWriteStream } from "node:fs";
import net from "node:net";
import path from "node:path";

/** A port nobody listens on right now, on loopback. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `probe` until it answers something truthy; throws `what` after `timeoutMs`. */
export async function until(what, probe, { timeoutMs = 30_000, intervalMs = 50 } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms: ${what}`);
    await sleep(intervalMs);
  }
}

export function createChildren(logDir) {
  /** @type {Set<import("node:child_process").ChildProcess>} */
  const live = new Set();

  /**
   * Starts `command` with `env` over this process's environment, its output appended to
   * `<logDir>/<name>.log`. `ready` (optional) is a pattern of its output to wait for.
   */
  async function start(name, command, args, { env = {}, cwd, ready, timeoutMs = 60_000 } = {}) {
    const log = createWriteStream(path.join(logDir, `${name}.log`), { flags: "a" });
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    live.add(child);
    const exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
    void exited.then(() => live.delete(child));
    let output = "";
    const seen = new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${name} did not start within ${timeoutMs} ms (${log.path})`)), timeoutMs);
      const onData = (chunk) => {
        log.write(chunk);
        if (!ready) return;
        output = (output + chunk.toString()).slice(-20_000);
        if (ready.test(output)) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout.on("data", onData);
      child.stderr.on("data", onData);
      void exited.then(({ code, signal }) => {
        clearTimeout(timer);
        reject(new Error(`${name} exited (${code ?? signal}) before it was ready; its log: ${log.path}`));
      });
      if (!ready) {
        clearTimeout(timer);
        resolve();
      }
    });
    seen.catch(() => undefined);
    await seen;
    return { name, child, exited, log: log.path };
  }

  /** Sends `signal` and waits for the exit (SIGKILL after `graceMs`). */
  async function stop(handle, signal = "SIGTERM", graceMs = 15_000) {
    if (handle.child.exitCode !== null || handle.child.signalCode !== null) return handle.exited;
    handle.child.kill(signal);
    const timer = setTimeout(() => handle.child.kill("SIGKILL"), graceMs);
    const result = await handle.exited;
    clearTimeout(timer);
    return result;
  }

  /** Every child still running gets SIGKILL (the run is over: nothing of theirs is kept). */
  async function stopAll() {
    const waits = [...live].map((child) => new Promise((resolve) => {
      child.once("exit", resolve);
      child.kill("SIGKILL");
    }));
    await Promise.race([Promise.all(waits), sleep(5_000)]);
  }

  return { start, stop, stopAll };
}
