import { createServer } from "node:net";

/** A start that cannot listen names the setting that chose the port, so the fix is one variable away. */
export class PortTakenError extends Error {
  constructor(setting: string, host: string, port: number) {
    super(`${setting}=${port}: ${host}:${port} is taken by another program; set ${setting} to a free port (0: any free port)`);
    this.name = "PortTakenError";
  }
}

/** Runs `listen`; a taken port becomes a PortTakenError naming `setting`. */
export async function listenNaming<T>(setting: string, host: string, port: number, listen: () => Promise<T>): Promise<T> {
  try {
    return await listen();
  } catch (error) {
    if ((error as { code?: unknown }).code === "EADDRINUSE") throw new PortTakenError(setting, host, port);
    throw error;
  }
}

/**
 * Fails with a PortTakenError when `host:port` is taken (port 0: nothing to check): asked before the
 * database is opened (start-ports.ts). The real listen still goes through `listenNaming`, for a port
 * taken in between.
 */
export async function assertPortFree(setting: string, host: string, port: number): Promise<void> {
  if (port === 0) return;
  const probe = createServer();
  await listenNaming(setting, host, port, () =>
    new Promise<void>((resolve, reject) => {
      probe.once("error", reject);
      probe.listen({ host, port, exclusive: true }, () => resolve());
    }),
  );
  await new Promise<void>((resolve) => probe.close(() => resolve()));
}
