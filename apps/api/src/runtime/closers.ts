/**
 * What the composition root opened, closed in the reverse order on shutdown. Each part has a name, so a
 * shutdown that overruns its deadline can say which part it was still waiting for.
 */
export interface Closers {
  add(name: string, close: () => Promise<unknown>): void;
  /** Closes every part, last opened first; a part that fails does not stop the others. */
  closeAll(): Promise<void>;
  /** The part being closed right now, if any. */
  stopping(): string | undefined;
}

export function createClosers(): Closers {
  const parts: Array<{ name: string; close: () => Promise<unknown> }> = [];
  let current: string | undefined;
  return {
    add: (name, close) => void parts.push({ name, close }),
    closeAll: async () => {
      for (const part of parts.splice(0).reverse()) {
        current = part.name;
        await part.close().catch(() => undefined);
      }
      current = undefined;
    },
    stopping: () => current,
  };
}
