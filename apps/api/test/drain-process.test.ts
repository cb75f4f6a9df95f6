/**
 * A deploy drains an instance (docs/operations.md#draining): on SIGTERM the built service,
 * as a real process, answers /readyz 503 at once while it goes on serving for SHUTDOWN_DRAIN_MS (so a
 * balancer stops sending first), then closes its port, ends an open subscription with tRPC's retryable
 * SERVICE_UNAVAILABLE and an SSE `retry` (the client reconnects elsewhere), finishes the request in
 * flight and exits 0. Embedded project only (one process owns the data directory); needs apps/api/dist.
 */
import { TRPC_ERROR_CODES_BY_KEY } from "@trpc/server/rpc";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { registerUser, RestClient } from "./support/app.js";
import { target } from "./support/database.js";
import { callbackSecret } from "./support/daraja.js";
import { serviceBuilt, startServiceProcess, type RunningService } from "./support/service-process.js";
import { CONSUMER_KEY, CONSUMER_SECRET, PASSKEY, SHORTCODE } from "./support/simulator.js";
import { startSimulator, type Simulator } from "./support/simulator.js";
import { slowLogin } from "./support/slow-login.js";
import { waitFor } from "./support/wait.js";

const drainMs = 1_500;

/** The raw text of an event stream, as it arrives, and whether it ended. */
function openEventStream(url: string, token: string) {
  const stream = { text: "", ended: false };
  const headers = { accept: "text/event-stream", authorization: `Bearer ${token}` };
  const done = fetch(url, { headers }).then(async (response) => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        stream.text += decoder.decode(chunk, { stream: true });
      }
    } catch {
      // The connection is cut after the hint: what arrived before is what counts.
    }
    stream.ended = true;
  });
  return { stream, done };
}

const connects = (url: string) =>
  new Promise<boolean>((resolve) => {
    const { hostname, port } = new URL(url);
    const socket = net.connect({ host: hostname, port: Number(port) });
    socket.once("connect", () => (socket.destroy(), resolve(true)));
    socket.once("error", () => resolve(false));
  });

describe.skipIf(target !== "embedded" || !serviceBuilt)("draining the service process on SIGTERM", () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), "mteja-drain-"));
  let sim: Simulator | undefined;
  let service: RunningService | undefined;
  afterAll(async () => {
    if (service?.child.exitCode === null) service.child.kill("SIGKILL");
    await sim?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("answers /readyz 503 first, serves through the drain, ends subscriptions with a reconnect hint", async () => {
    sim = await startSimulator({ callbacks: false });
    service = await startServiceProcess({
      PORT: "0",
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      DATABASE_URL: "",
      NODE_ENV: "test",
      LOG_LEVEL: "info",
      DATA_ENCRYPTION_KEY: randomBytes(32).toString("hex"),
      PASSWORD_HASHER: "threads",
      SHUTDOWN_DRAIN_MS: String(drainMs),
      MOMO_SIMULATOR: "off",
      MTEJA_DEV_START: "",
      MOMO_BASE_URL: sim.url,
      MOMO_CONSUMER_KEY: CONSUMER_KEY,
      MOMO_CONSUMER_SECRET: CONSUMER_SECRET,
      MOMO_SHORTCODE: SHORTCODE,
      MOMO_PASSKEY: PASSKEY,
      MOMO_TRANSACTION_TYPE: "CustomerPayBillOnline",
      MOMO_CALLBACK_URL: "http://127.0.0.1:9/api/momo/callback/stkpush",
      MOMO_CALLBACK_SECRET: callbackSecret,
      MOMO_RECONCILE_INTERVAL_MS: "0",
    });
    const { url, child } = service;
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    const rest = new RestClient(url);
    const user = await registerUser(rest);
    const pushed = await rest.post("/api/momo/stkpush", { phone: "0712345678", amount: 10 }, user.accessToken);
    expect(pushed.status, JSON.stringify(pushed.body)).toBe(200);
    const input = encodeURIComponent(JSON.stringify({ checkoutRequestId: pushed.body.data.checkoutRequestId }));
    const subscription = openEventStream(`${url}/trpc/payments.onStatus?input=${input}`, user.accessToken);
    await waitFor(async () => subscription.stream.text.includes("PENDING"));
    const inFlight = slowLogin(url);
    await new Promise((resolve) => setTimeout(resolve, 100));

    const signalled = Date.now();
    child.kill("SIGTERM");
    // Readiness first: the balancer's health check sees 503 while the instance still serves.
    const readiness = await waitFor(async () => {
      const answer = await fetch(`${url}/readyz`);
      return answer.status === 503 ? ((await answer.json()) as { status: string }) : undefined;
    });
    expect(readiness).toEqual({ status: "draining" });
    const during = await fetch(`${url}/healthz`);
    expect(during.status).toBe(200);
    expect(during.headers.get("connection")).toBe("close");
    expect(Date.now() - signalled).toBeLessThan(drainMs);
    expect(subscription.stream.ended).toBe(false);

    // Then the port closes and the subscription gets tRPC's retryable error and an SSE reconnect delay.
    await subscription.done;
    expect(Date.now() - signalled).toBeGreaterThanOrEqual(drainMs - 100);
    const hint = /event: serialized-error\ndata: (.*)\nretry: (\d+)\n\n/.exec(subscription.stream.text);
    expect(hint, subscription.stream.text).not.toBeNull();
    const shape = JSON.parse(hint![1]!) as { code: number; error: { code: string }; data: { httpStatus: number } };
    expect(shape.code).toBe(TRPC_ERROR_CODES_BY_KEY.SERVICE_UNAVAILABLE);
    expect(shape.error.code).toBe("SERVICE_UNAVAILABLE");
    expect(shape.data.httpStatus).toBe(503);
    expect(Number(hint![2])).toBeGreaterThanOrEqual(500);
    expect(await connects(url)).toBe(false);

    // The request in flight still gets its answer, and the process exits cleanly.
    inFlight.finish();
    const answer = await inFlight.answer;
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body).error.code).toBe("INVALID_CREDENTIALS");
    expect(answer.headers.connection).toBe("close");
    expect(await exited).toBe(0);
    expect(Date.now() - signalled).toBeLessThan(drainMs + 10_000);
  }, 90_000);
});
