/**
 * V8 collects garbage with helper threads beside the main thread. On a machine (or a CPU limit) of one
 * core they cannot run beside it: they take turns with the event loop and the password hashing processes,
 * so a request is paused mid-flight while they mark. `node --single-threaded-gc` does that work on the
 * main thread instead, between requests; the flag must be given at start (V8 refuses it later).
 * docs/deployment.md says how to start an instance; docs/performance.md has the measurement.
 */
export const singleThreadedGcFlag = "--single-threaded-gc";

/** What main.ts logs at start when the service runs on one core without the flag; nothing otherwise. */
export function oneCoreGcHint(cores: number, execArgv: readonly string[]): string | undefined {
  if (cores > 1 || execArgv.includes(singleThreadedGcFlag)) return undefined;
  return `one core: start node with ${singleThreadedGcFlag} (node ${singleThreadedGcFlag} apps/api/dist/main.js), so garbage collection does not pause requests mid-flight`;
}
