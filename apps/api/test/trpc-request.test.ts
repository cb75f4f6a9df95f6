/**
 * The request the tRPC mount gives tRPC (apps/api/src/http/trpc-request.ts): for a GET, the URL and the
 * headers tRPC's own adapter would give it and a signal that aborts when the client goes; a request
 * with a body is still a Fetch `Request` from tRPC's adapter.
 */
import { incomingMessageToRequest } from "@trpc/server/adapters/node-http";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { trpcRequestOf } from "../src/http/trpc-request.js";

/** One request to a throwaway server; `handle` sees it and decides when to answer. */
async function withRequest(send: (url: string) => Promise<unknown>, handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>): Promise<void> {
  let failure: unknown;
  let done!: () => void;
  const handled = new Promise<void>((resolve) => (done = resolve));
  const server = createServer((req, res) => {
    handle(req, res)
      .catch((error: unknown) => (failure = error))
      .finally(() => {
        if (!res.writableEnded && !res.destroyed) res.end();
        done();
      });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/trpc/profile.me?input=%7B%7D`;
  await send(url).catch(() => undefined);
  await handled;
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  if (failure) throw failure;
}

describe("the tRPC mount's request", () => {
  it("has the URL, method and headers of tRPC's adapter for a GET", async () => {
    await withRequest(
      (url) => fetch(url, { headers: { "x-tenant-id": "default", accept: "application/json" } }),
      async (req, res) => {
        const ours = trpcRequestOf(req, res);
        const theirs = incomingMessageToRequest(req, res, { maxBodySize: null });
        expect(ours).not.toBeInstanceOf(Request);
        expect(ours.url).toBe(theirs.url);
        expect(ours.method).toBe("GET");
        expect([...ours.headers]).toEqual([...theirs.headers]);
        for (const name of ["x-tenant-id", "X-Tenant-ID", "accept", "trpc-accept", "content-type"]) {
          expect(ours.headers.get(name), name).toBe(theirs.headers.get(name));
          expect(ours.headers.has(name), name).toBe(theirs.headers.has(name));
        }
      },
    );
  });

  it("aborts its signal when the client goes before the answer, not after an answer", async () => {
    const controller = new AbortController();
    await withRequest(
      (url) => fetch(url, { signal: controller.signal }),
      async (req, res) => {
        const signal = trpcRequestOf(req, res).signal;
        expect(signal.aborted).toBe(false);
        const aborted = new Promise((resolve) => signal.addEventListener("abort", resolve));
        controller.abort();
        await aborted;
        // Read only after the client went: aborted at once.
        expect(trpcRequestOf(req, res).signal.aborted).toBe(true);
      },
    );
    await withRequest(
      (url) => fetch(url).then((r) => r.text()),
      async (req, res) => {
        const signal = trpcRequestOf(req, res).signal;
        await new Promise<void>((resolve) => res.end("ok", resolve));
        await new Promise((resolve) => setTimeout(resolve, 50));
        expect(signal.aborted).toBe(false);
      },
    );
  });

  it("is tRPC's Fetch Request for a request with a body", async () => {
    await withRequest(
      (url) => fetch(url, { method: "POST", body: "{}", headers: { "content-type": "application/json" } }),
      async (req, res) => {
        const request = trpcRequestOf(req, res);
        expect(request).toBeInstanceOf(Request);
        expect(await request.text()).toBe("{}");
      },
    );
  });
});
