import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createAddressGuard, createWebhookSender } from "../src/index.js";

interface Received {
  headers: IncomingMessage["headers"];
  body: string;
}

const servers: Server[] = [];

/** A real HTTP receiver on 127.0.0.1 answering with `answer`; it records what it received. */
async function receiver(answer: (res: ServerResponse) => void) {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      received.push({ headers: req.headers, body });
      answer(res);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { received, port, url: `http://127.0.0.1:${port}/hooks` };
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve).closeAllConnections())));
});

const delivery = { headers: { "content-type": "application/json", "mteja-event-id": "evt_1" }, body: '{"id":"evt_1"}' };

describe("the webhook sender", () => {
  it("posts the body and headers as given and calls a 2xx an acknowledgement", async () => {
    const target = await receiver((res) => res.writeHead(204).end());
    const sender = createWebhookSender({ allowPrivateAddresses: true });
    expect(await sender.send({ url: target.url, ...delivery })).toEqual({ statusCode: 204, error: null, acknowledged: true });
    expect(target.received).toHaveLength(1);
    expect(target.received[0]!.body).toBe(delivery.body);
    expect(target.received[0]!.headers["mteja-event-id"]).toBe("evt_1");
    expect(target.received[0]!.headers["content-type"]).toBe("application/json");
  });

  it("reports a 500 as a failed attempt with its status", async () => {
    const target = await receiver((res) => res.writeHead(500).end("boom"));
    const sender = createWebhookSender({ allowPrivateAddresses: true });
    expect(await sender.send({ url: target.url, ...delivery })).toEqual({ statusCode: 500, error: null, acknowledged: false });
  });

  it("does not follow a redirect", async () => {
    const elsewhere = await receiver((res) => res.writeHead(200).end());
    const target = await receiver((res) => res.writeHead(302, { location: elsewhere.url }).end());
    const sender = createWebhookSender({ allowPrivateAddresses: true });
    expect(await sender.send({ url: target.url, ...delivery })).toEqual({ statusCode: 302, error: null, acknowledged: false });
    expect(elsewhere.received).toHaveLength(0);
  });

  it("gives up on a receiver that does not answer in time", async () => {
    const target = await receiver(() => undefined);
    const sender = createWebhookSender({ allowPrivateAddresses: true, timeoutMs: 200 });
    const result = await sender.send({ url: target.url, ...delivery });
    expect(result.acknowledged).toBe(false);
    expect(result.statusCode).toBeNull();
    expect(result.error).toMatch(/timed out after 200 ms/);
  });

  it("reports a refused connection", async () => {
    const target = await receiver((res) => res.end());
    const url = target.url;
    await new Promise((resolve) => servers.pop()!.close(resolve));
    const result = await createWebhookSender({ allowPrivateAddresses: true }).send({ url, ...delivery });
    expect(result).toMatchObject({ statusCode: null, acknowledged: false });
    expect(result.error).toMatch(/ECONNREFUSED/);
  });

  it("in production refuses loopback by address and by a name that resolves to it, without connecting", async () => {
    const target = await receiver((res) => res.writeHead(200).end());
    const sender = createWebhookSender({ allowPrivateAddresses: false });
    for (const url of [target.url, `http://localhost:${target.port}/hooks`, `http://[::ffff:127.0.0.1]:${target.port}/`]) {
      const result = await sender.send({ url, ...delivery });
      expect(result.acknowledged, url).toBe(false);
      expect(result.error, url).toMatch(/not a public address/);
    }
    expect(target.received).toHaveLength(0);
  });

  it("refuses what is not an http(s) URL", async () => {
    const sender = createWebhookSender({ allowPrivateAddresses: true });
    expect(await sender.send({ url: "ftp://example.test/x", ...delivery })).toMatchObject({ error: "unsupported protocol", acknowledged: false });
    expect(await sender.send({ url: "not a url", ...delivery })).toMatchObject({ error: "invalid URL", acknowledged: false });
  });
});

describe("the address guard", () => {
  const production = createAddressGuard({ allowPrivate: false });

  it("refuses loopback, private, link-local, CGNAT, multicast and unspecified addresses, IPv4-mapped ones included", () => {
    for (const address of ["127.0.0.1", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0", "224.0.0.1", "::1", "::", "fe80::1", "fd00::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1"]) {
      expect(production.allows(address), address).toBe(false);
    }
  });

  it("allows public addresses", () => {
    for (const address of ["8.8.8.8", "172.32.0.1", "196.201.214.200", "2001:4860:4860::8888"]) expect(production.allows(address), address).toBe(true);
  });

  it("allows every address outside production, and never a name", () => {
    const development = createAddressGuard({ allowPrivate: true });
    expect(development.allows("127.0.0.1")).toBe(true);
    expect(development.allows("localhost")).toBe(false);
    expect(production.allows("example.com")).toBe(false);
  });
});
