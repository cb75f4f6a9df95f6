import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createAddressGuard, createWebhookSender, guardedLookup } from "../src/index.js";
import { keptConnectionIdleMs } from "../src/sender.js";

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

  it("keeps the connection for the next delivery to the same receiver, and closes it when closed", async () => {
    const target = await receiver((res) => res.writeHead(200).end("ok"));
    const server = servers.at(-1)!;
    const sockets: Socket[] = [];
    server.on("connection", (socket: Socket) => sockets.push(socket));
    const sender = createWebhookSender({ allowPrivateAddresses: true });
    for (let i = 0; i < 3; i++) expect((await sender.send({ url: target.url, ...delivery })).acknowledged).toBe(true);
    expect(target.received).toHaveLength(3);
    expect(sockets).toHaveLength(1);
    const closed = new Promise((resolve) => sockets[0]!.once("close", resolve));
    sender.close();
    await closed;
  });

  it("opens a new connection once the kept one has been idle too long", async () => {
    const target = await receiver((res) => res.writeHead(200).end());
    const server = servers.at(-1)!;
    let connections = 0;
    server.on("connection", () => (connections += 1));
    const sender = createWebhookSender({ allowPrivateAddresses: true });
    expect((await sender.send({ url: target.url, ...delivery })).acknowledged).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, keptConnectionIdleMs + 300));
    expect((await sender.send({ url: target.url, ...delivery })).acknowledged).toBe(true);
    expect(connections).toBe(2);
    sender.close();
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
    for (const [url, rule] of [
      [target.url, "loopback 127.0.0.0/8"],
      [`http://localhost:${target.port}/hooks`, /loopback (127\.0\.0\.0\/8|::1\/128)/],
      [`http://[::ffff:127.0.0.1]:${target.port}/`, "IPv4-mapped IPv6 ::ffff:0:0/96"],
    ] as const) {
      const result = await sender.send({ url, ...delivery });
      expect(result.acknowledged, url).toBe(false);
      expect(result.error, url).toMatch(/^refused: the host is not a public address \(rule: /);
      expect(result.error, url).toMatch(rule);
      // The attempt's error is shown to the shop: a name's address is never in it.
      if (url.includes("localhost")) expect(result.error).not.toMatch(/127\.0\.0\.1|::1\b/);
    }
    expect(target.received).toHaveLength(0);
  });

  it("checks the addresses a name resolves to when connecting (a name that turned private since it was added)", async () => {
    const rebound = guardedLookup(createAddressGuard({ allowPrivate: false }), (_hostname, _options, callback) =>
      callback(null, [{ address: "93.184.215.14", family: 4 }, { address: "10.9.8.7", family: 4 }]),
    );
    const error = await new Promise<Error | null>((resolve) => rebound("shop.example.com", { all: true }, (err) => resolve(err)));
    expect(error?.message).toBe("refused: the host is not a public address (rule: private network 10.0.0.0/8)");
    expect(error?.message).not.toContain("10.9.8.7");
    const allowed = guardedLookup(createAddressGuard({ allowPrivate: false }), (_hostname, _options, callback) => callback(null, [{ address: "93.184.215.14", family: 4 }]));
    const answer = await new Promise<unknown>((resolve) => allowed("shop.example.com", {}, (err, address) => resolve(err ?? address)));
    expect(answer).toBe("93.184.215.14");
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

  it("refuses the IPv6 forms that carry an IPv4 address (compatible, 6to4, NAT64) and site-local ones", () => {
    for (const address of ["::7f00:1", "::10.0.0.1", "2002:7f00:1::", "2002:a00:1::1", "64:ff9b:1::a00:1", "fec0::1", "feff::1"]) {
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
