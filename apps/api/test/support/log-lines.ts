/** A service's log as the test reads it: each JSON line it writes, parsed. */
import { Writable } from "node:stream";

export type LogLine = Record<string, unknown>;

/** A stream to give a service as its `logStream`, and the lines written to it so far. */
export function logCapture(lines: LogLine[] = []): { stream: Writable; lines: LogLine[] } {
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line));
      callback();
    },
  });
  return { stream, lines };
}
