/** Polls `probe` until it answers something truthy (or fails after timeoutMs). */
export async function waitFor<T>(probe: () => Promise<T | undefined | null | false>, { timeoutMs = 10_000, intervalMs = 25 } = {}): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error("waitFor: timed out");
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
