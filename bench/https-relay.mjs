#!/usr/bin/env node
// The https relay in front of the server under test, a process of its own (started by checkout-harness.mjs
// on the load's core): Daraja's callbacks arrive over TLS, as a production start requires, and their TLS
// work stays out of the load generator's event loop, whose delay would otherwise show in every latency
// the generator measures.
//
//   node bench/https-relay.mjs --cert cert.pem --key key.pem --target-port 3000   (prints "listening <url>")
import { readFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { createServer } from "node:https";
import { args } from "./args.mjs";

const targetPort = Number(args["target-port"]);
const server = createServer({ cert: readFileSync(args.cert), key: readFileSync(args.key) }, (incoming, outgoing) => {
  const forwarded = httpRequest(
    { host: "127.0.0.1", port: targetPort, method: incoming.method, path: incoming.url, headers: incoming.headers },
    (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(outgoing);
    },
  );
  forwarded.on("error", () => outgoing.writeHead(502).end());
  incoming.pipe(forwarded);
});
server.listen(0, "127.0.0.1", () => console.log(`listening https://127.0.0.1:${server.address().port}`));
process.once("SIGTERM", () => server.close(() => process.exit(0)));
