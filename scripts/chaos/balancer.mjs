// The balancer in front of the instances: HAProxy from Debian's package when it is there (installed with
// apt-get when absent, as root, unless told not to), else a small round-robin HTTP proxy in Node with the
// same behaviour: health checks on /readyz every second (down after 2 failures, up after 2 successes), a
// request whose connection could not be made is sent to the other instance, X-Forwarded-For is added.
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import { until } from "./children.mjs";

/** The haproxy.cfg of the run (also the example of docs/deployment.md, with TLS and real addresses there). */
export function haproxyConfig({ port, statsPort, servers, checkIntervalMs = 1000 }) {
  return `# Written by scripts/chaos (docs/deployment.md shows it for a real deployment).
global
    maxconn 4096

defaults
    mode http
    option forwardfor
    option redispatch
    retries 3
    timeout connect 2s
    timeout client 65s
    # Above the longest STK push (82 s: Daraja's in-flight window, docs/mpesa.md#idempotency-key).
    timeout server 90s
    timeout http-keep-alive 10s

frontend mteja
    bind 127.0.0.1:${port}
    default_backend instances

backend instances
    balance roundrobin
    option httpchk
    http-check send meth GET uri /readyz
    http-check expect status 200
    http-response set-header X-Served-By %s
    default-server check inter ${checkIntervalMs} fall 2 rise 2
${servers.map((server) => `    server ${server.name} 127.0.0.1:${server.port}`).join("\n")}

listen stats
    bind 127.0.0.1:${statsPort}
    stats enable
    stats uri /stats
`;
}

/** HAProxy's path, after installing it with apt-get if allowed; undefined when it cannot be had. */
export function findHaproxy({ install, log }) {
  const which = () => spawnSync("sh", ["-c", "command -v haproxy"], { encoding: "utf8" }).stdout.trim() || undefined;
  const found = which();
  if (found || !install) return found;
  if (process.getuid?.() !== 0 || spawnSync("sh", ["-c", "command -v apt-get"]).status !== 0) return undefined;
  log("HAProxy is not installed: apt-get install haproxy (--no-install to use the Node proxy instead)");
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  const installed = spawnSync("apt-get", ["install", "-y", "-qq", "haproxy"], { env, stdio: "ignore" });
  if (installed.status !== 0) spawnSync("apt-get", ["update", "-qq"], { env, stdio: "ignore" });
  if (installed.status !== 0) spawnSync("apt-get", ["install", "-y", "-qq", "haproxy"], { env, stdio: "ignore" });
  return which();
}

/** HAProxy as a child in the foreground; `states()` reads its stats page: { a: "UP", b: "DOWN", … }. */
export async function startHaproxy({ bin, children, dir, port, statsPort, servers }) {
  const config = path.join(dir, "haproxy.cfg");
  writeFileSync(config, haproxyConfig({ port, statsPort, servers }));
  const check = spawnSync(bin, ["-c", "-f", config], { encoding: "utf8" });
  if (check.status !== 0) throw new Error(`haproxy refused ${config}:\n${check.stdout}${check.stderr}`);
  const handle = await children.start("haproxy", bin, ["-db", "-f", config]);
  const states = async () => {
    const csv = await (await fetch(`http://127.0.0.1:${statsPort}/stats;csv`)).text();
    const [header, ...rows] = csv.trim().split("\n");
    const columns = header.replace(/^# /, "").split(",");
    const [proxy, name, status] = ["pxname", "svname", "status"].map((column) => columns.indexOf(column));
    return Object.fromEntries(rows.map((row) => row.split(",")).filter((row) => row[proxy] === "instances" && row[name] !== "BACKEND")
      .map((row) => [row[name], row[status].split(" ")[0]]));
  };
  await until("HAProxy's stats page", async () => Object.keys(await states()).length === servers.length);
  return { kind: `HAProxy (${bin})`, url: `http://127.0.0.1:${port}`, config, states, close: () => children.stop(handle) };
}

/** The fallback: the same rules as the HAProxy configuration above, in a few lines of Node. */
export async function startNodeBalancer({ port, servers, checkIntervalMs = 1000 }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  // Up until the checks say otherwise, as HAProxy starts its servers.
  const state = new Map(servers.map((server) => [server.name, { up: true, streak: 0 }]));
  let next = 0;
  const checks = setInterval(() => {
    for (const server of servers) {
      const health = state.get(server.name);
      // One check at a time per server; an answer may take up to 2 s (HAProxy's `timeout check` is its own too).
      if (health.checking) continue;
      health.checking = true;
      const request = http.get({ host: "127.0.0.1", port: server.port, path: "/readyz", timeout: 2_000 }, (response) => {
        response.resume();
        record(response.statusCode === 200);
      });
      request.on("timeout", () => request.destroy(new Error("timeout")));
      request.on("error", () => record(false));
      // Down after 2 failures in a row, up after 2 successes.
      function record(ok) {
        health.checking = false;
        health.streak = ok === health.up ? 0 : health.streak + 1;
        if (health.streak >= 2) {
          health.up = ok;
          health.streak = 0;
        }
      }
    }
  }, checkIntervalMs);

  const pick = (tried) => {
    const candidates = servers.filter((server) => state.get(server.name).up && !tried.has(server.name));
    if (candidates.length === 0) return undefined;
    next = (next + 1) % candidates.length;
    return candidates[next];
  };

  const server = http.createServer((request, response) => {
    const chunks = [];
    request.on("data", (chunk) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks);
      const tried = new Set();
      const attempt = () => {
        const target = pick(tried);
        if (!target) {
          response.writeHead(503, { "content-type": "text/plain" }).end("no server is available");
          return;
        }
        tried.add(target.name);
        const forwarded = [request.headers["x-forwarded-for"], request.socket.remoteAddress].filter(Boolean).join(", ");
        const upstream = http.request(
          { host: "127.0.0.1", port: target.port, method: request.method, path: request.url, agent, headers: { ...request.headers, "x-forwarded-for": forwarded } },
          (answer) => {
            response.writeHead(answer.statusCode ?? 502, { ...answer.headers, "x-served-by": target.name });
            answer.pipe(response);
          },
        );
        upstream.on("error", (error) => {
          // Only a connection that was never made is sent elsewhere: the request may have been acted on otherwise.
          if (!response.headersSent && error.code === "ECONNREFUSED") return attempt();
          if (!response.headersSent) response.writeHead(502, { "content-type": "text/plain" }).end("bad gateway");
          else response.destroy();
        });
        upstream.end(body);
      };
      attempt();
    });
  });
  await new Promise((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    kind: "the Node proxy (scripts/chaos/balancer.mjs)",
    url: `http://127.0.0.1:${port}`,
    config: undefined,
    states: async () => Object.fromEntries([...state].map(([name, health]) => [name, health.up ? "UP" : "DOWN"])),
    close: () => new Promise((resolve) => {
      clearInterval(checks);
      agent.destroy();
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
