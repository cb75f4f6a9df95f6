/**
 * A TCP proxy in front of the test PostgreSQL that a test can cut, as a database restart or a network
 * fault would: `cut("refuse")` stops listening and resets every connection through it (the server went
 * away: new connections are refused), `cut("stall")` keeps every socket open but passes no byte either
 * way (the network went silent: only time-outs notice). `reopen()` lets new connections through again,
 * on the same port. Loopback only.
 */
import net from "node:net";

export type CutMode = "refuse" | "stall";

export interface DatabaseProxy {
  port: number;
  /** `url` with its host and port replaced by the proxy's. */
  through(url: string): string;
  cut(mode?: CutMode): Promise<void>;
  reopen(): Promise<void>;
  close(): Promise<void>;
}

interface Pair {
  client: net.Socket;
  server: net.Socket;
}

export async function startDatabaseProxy(target: { host: string; port: number }): Promise<DatabaseProxy> {
  const pairs = new Set<Pair>();
  let state: "open" | CutMode = "open";

  const accept = (client: net.Socket) => {
    const server = net.connect(target);
    const pair = { client, server };
    pairs.add(pair);
    const end = () => {
      client.destroy();
      server.destroy();
      pairs.delete(pair);
    };
    client.on("error", end).on("close", end);
    server.on("error", end).on("close", end);
    if (state === "stall") {
      // Accepted by the kernel, never answered: what a connection to a silent host looks like.
      client.pause();
      return;
    }
    client.pipe(server);
    server.pipe(client);
  };

  let listener = net.createServer(accept);
  await listen(listener, 0);
  const address = listener.address();
  const port = typeof address === "object" && address ? address.port : 0;

  return {
    port,
    through(url) {
      const parsed = new URL(url);
      parsed.hostname = "127.0.0.1";
      parsed.port = String(port);
      return parsed.toString();
    },
    async cut(mode = "refuse") {
      state = mode;
      if (mode === "stall") {
        for (const { client, server } of pairs) {
          client.unpipe(server);
          server.unpipe(client);
          client.pause();
          server.pause();
        }
        return;
      }
      const closed = new Promise<void>((resolve) => listener.close(() => resolve()));
      for (const { client, server } of pairs) {
        client.resetAndDestroy();
        server.destroy();
      }
      pairs.clear();
      await closed;
    },
    async reopen() {
      // Stalled connections stay stalled (their host is gone): only new connections work, so a pool
      // that kept handing out a stuck connection would still fail.
      if (state === "refuse") {
        listener = net.createServer(accept);
        await listen(listener, port);
      }
      state = "open";
    },
    async close() {
      for (const { client, server } of pairs) {
        client.destroy();
        server.destroy();
      }
      pairs.clear();
      if (listener.listening) await new Promise<void>((resolve) => listener.close(() => resolve()));
    },
  };
}

function listen(server: net.Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
}
