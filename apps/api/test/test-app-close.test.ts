/**
 * Closing a test service is bounded like a SIGTERM: a request still in flight when the close starts is
 * answered with `Connection: close`, so its kept-alive connection does not hold the close open until
 * the server's keep-alive timeout (72 s) — what made a suite's afterAll time out when a Daraja callback
 * was being delivered at the end of the suite.
 */
import http from "node:http";
import { describe, expect, it } from "vitest";
import { startTestApp } from "./support/app.js";
import { skipDatabaseAgnostic } from "./support/database.js";

describe.skipIf(skipDatabaseAgnostic)("closing a test service", () => {
  it("ends promptly while a kept-alive request is in flight, and that request still gets its answer", async () => {
    const t = await startTestApp();
    const agent = new http.Agent({ keepAlive: true, keepAliveMsecs: 60_000 });
    try {
      const { port } = new URL(t.url);
      const body = JSON.stringify({ email: "nobody@example.com", password: "a password that is wrong" });
      let arrived = false;
      t.app.server.once("request", () => (arrived = true));
      const request = http.request({
        agent,
        host: "127.0.0.1",
        port: Number(port),
        method: "POST",
        path: "/api/v1/auth/login",
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body), "x-tenant-id": "default" },
      });
      const answer = new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
        request.on("response", (response) => {
          response.resume();
          response.on("end", () => resolve({ status: response.statusCode ?? 0, connection: response.headers.connection }));
        });
        request.on("error", reject);
      });
      request.write(body.slice(0, 10));
      for (let i = 0; i < 200 && !arrived; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(arrived).toBe(true);

      const started = Date.now();
      const closed = t.close();
      await new Promise((resolve) => setTimeout(resolve, 100));
      request.end(body.slice(10));
      expect(await answer).toEqual({ status: 401, connection: "close" });
      await closed;
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      agent.destroy();
    }
  });
});
