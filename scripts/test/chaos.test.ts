/**
 * The parts of the chaos run (scripts/chaos, docs/deployment.md#the-chaos-run) that decide its verdict
 * without a cluster: the receiver's signature check, the reading of the status stream, the latency
 * arithmetic, what counts as a failed request, the HAProxy configuration (checked by haproxy itself when
 * it is installed) and the Node proxy that stands in for HAProxy.
 */
import { spawnSync } from "node:child_process";
import { createHmac } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
// @ts-expect-error plain ES modules of the script
import { haproxyConfig, startNodeBalancer } from "../chaos/balancer.mjs";
// @ts-expect-error plain ES modules of the script
import { freePort, until } from "../chaos/children.mjs";
// @ts-expect-error plain ES modules of the script
import { signatureValid } from "../chaos/receiver.mjs";
// @ts-expect-error plain ES modules of the script
import { checkoutIdOf } from "../chaos/relay.mjs";
// @ts-expect-error plain ES modules of the script
import { quantile, statusLatencies } from "../chaos/report.mjs";
// @ts-expect-error plain ES modules of the script
import { parseSse } from "../chaos/status-stream.mjs";
// @ts-expect-error plain ES modules of the script
import { isFailure, isProviderAnswer } from "../chaos/storm.mjs";

const sign = (secret: string, t: number, body: string) => createHmac("sha256", secret).update(`${t}.${body}`).digest("hex");

describe("the receiver's signature check", () => {
  const secret = "whsec_0123456789abcdef";
  const body = '{"id":"evt_1","type":"payment.succeeded"}';
  const now = 1_800_000_000;

  it("accepts the v1 of the raw body under the secret, also as the second value after a rotation", () => {
    expect(signatureValid(Buffer.from(body), `t=${now},v1=${sign(secret, now, body)}`, secret, now)).toBe(true);
    const rotated = `t=${now},v1=${sign("whsec_new", now, body)},v1=${sign(secret, now, body)}`;
    expect(signatureValid(Buffer.from(body), rotated, secret, now)).toBe(true);
  });

  it("refuses another secret, a changed body, a time more than 5 minutes away and a missing header", () => {
    expect(signatureValid(Buffer.from(body), `t=${now},v1=${sign("whsec_other", now, body)}`, secret, now)).toBe(false);
    expect(signatureValid(Buffer.from(`${body} `), `t=${now},v1=${sign(secret, now, body)}`, secret, now)).toBe(false);
    expect(signatureValid(Buffer.from(body), `t=${now - 301},v1=${sign(secret, now - 301, body)}`, secret, now)).toBe(false);
    expect(signatureValid(Buffer.from(body), undefined, secret, now)).toBe(false);
  });
});

describe("the status stream and the callbacks", () => {
  it("splits tRPC's SSE events, keeping an unfinished one for the next chunk", () => {
    const text = 'event: connected\ndata: {}\n\ndata: {"status":"PENDING"}\nid: 1\n\nevent: serialized-error\ndata: {"x"';
    const { events, rest } = parseSse(text);
    expect(events).toEqual([
      { event: "connected", data: "{}" },
      { event: "message", data: '{"status":"PENDING"}' },
    ]);
    expect(rest).toBe('event: serialized-error\ndata: {"x"');
  });

  it("finds the CheckoutRequestID of an STK callback", () => {
    expect(checkoutIdOf(JSON.stringify({ Body: { stkCallback: { CheckoutRequestID: "ws_CO_1" } } }))).toBe("ws_CO_1");
    expect(checkoutIdOf("not json")).toBeUndefined();
  });
});

describe("the verdict's arithmetic", () => {
  it("measures across instances from the applying instance's subscriber, keeping samples during faults apart", () => {
    const result = (settledAt: number | undefined) => ({ settledAt });
    const samples = [
      { results: [result(110), result(150)], sentAt: 100 },
      { results: [result(1_020), result(1_900)], sentAt: 1_000 },
      { results: [result(2_050)], sentAt: 2_000 },
      { results: [result(5_100), result(5_200)], sentAt: 5_000 },
    ];
    const latencies = statusLatencies(samples, [{ what: "kill", from: 4_000, to: 5_050 }]);
    expect(latencies.spread).toEqual([40, 880]);
    expect(latencies.steady).toEqual([50, 900]);
    expect(latencies.same).toEqual([10, 20]);
    expect(latencies.duringFaults).toEqual([200]);
    expect(latencies.incomplete).toBe(1);
    expect(quantile([5, 1, 3, 2, 4], 0.5)).toBe(3);
    expect(quantile([], 0.5)).toBeNaN();
  });

  it("counts no answer, a 5xx and a 429 as failed, Daraja's refusals apart", () => {
    expect(["network error", "timeout", "502", "503 SERVICE_UNAVAILABLE", "429 RATE_LIMITED"].every(isFailure)).toBe(true);
    expect(["200", "201", "404 NOT_FOUND", "409 INTENT_NOT_PAYABLE"].some(isFailure)).toBe(false);
    expect(isProviderAnswer("502 PAYMENT_PROVIDER_ERROR")).toBe(true);
    expect(isProviderAnswer("503 SERVICE_UNAVAILABLE")).toBe(false);
  });
});

describe("the balancer", () => {
  const haproxy = spawnSync("sh", ["-c", "command -v haproxy"], { encoding: "utf8" }).stdout.trim();

  it("writes a configuration with health checks on /readyz that HAProxy accepts", (context) => {
    const config = haproxyConfig({ port: 8080, statsPort: 8081, servers: [{ name: "a", port: 3001 }, { name: "b", port: 3002 }] });
    expect(config).toContain("http-check send meth GET uri /readyz");
    expect(config).toContain("default-server check inter 1000 fall 2 rise 2");
    expect(config).toMatch(/server a 127\.0\.0\.1:3001\n\s+server b 127\.0\.0\.1:3002/);
    if (!haproxy) return context.skip("haproxy is not installed");
    const dir = mkdtempSync(path.join(os.tmpdir(), "chaos-haproxy-"));
    try {
      writeFileSync(path.join(dir, "haproxy.cfg"), config);
      const check = spawnSync(haproxy, ["-c", "-f", path.join(dir, "haproxy.cfg")], { encoding: "utf8" });
      expect(check.status, check.stdout + check.stderr).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  const servers: Server[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
  });

  /** An instance: /readyz answers `ready()`, anything else its name. */
  async function instance(name: string, ready: () => number) {
    const server = createServer((request, response) => {
      if (request.url === "/readyz") return response.writeHead(ready()).end();
      response.writeHead(200, { "content-type": "text/plain" }).end(`${name} ${request.headers["x-forwarded-for"]}`);
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return { name, port: (server.address() as AddressInfo).port };
  }

  it("the Node proxy sends only to instances whose /readyz answers 200", async () => {
    let bReady = 200;
    const a = await instance("a", () => 200);
    const b = await instance("b", () => bReady);
    const gone = { name: "c", port: await freePort() };
    const port = await freePort();
    const balancer = await startNodeBalancer({ port, servers: [a, b, gone], checkIntervalMs: 50 });
    try {
      const answers = async (n: number) => {
        const seen: string[] = [];
        for (let i = 0; i < n; i += 1) seen.push(await (await fetch(`http://127.0.0.1:${port}/x`)).text());
        return seen;
      };
      await until("a and b up", async () => {
        const states = await balancer.states();
        return states.a === "UP" && states.b === "UP" && states.c === "DOWN";
      }, { timeoutMs: 5_000 });
      const both = await answers(6);
      expect(new Set(both)).toEqual(new Set(["a 127.0.0.1", "b 127.0.0.1"]));
      bReady = 503;
      await until("b down", async () => (await balancer.states()).b === "DOWN", { timeoutMs: 5_000 });
      expect(new Set(await answers(4))).toEqual(new Set(["a 127.0.0.1"]));
    } finally {
      await balancer.close();
    }
  });

  it("the Node proxy sends a request whose connection is refused to another instance", async () => {
    const a = await instance("a", () => 200);
    const gone = { name: "gone", port: await freePort() };
    const port = await freePort();
    // No check runs in this test: both count as up, as at the start; every other request picks the dead one first.
    const balancer = await startNodeBalancer({ port, servers: [gone, a], checkIntervalMs: 600_000 });
    try {
      expect(await balancer.states()).toEqual({ gone: "UP", a: "UP" });
      for (let i = 0; i < 4; i += 1) {
        const response = await fetch(`http://127.0.0.1:${port}/x`);
        expect([response.status, await response.text()]).toEqual([200, "a 127.0.0.1"]);
      }
    } finally {
      await balancer.close();
    }
  });
});
