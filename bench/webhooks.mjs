#!/usr/bin/env node
// Webhook delivery: how fast the outbox reaches the shops' receivers. Two shops with 4 endpoints each
// (8 local receivers on core 1); a backlog of payment.succeeded events, each with a pending delivery per
// endpoint, written straight into the outbox tables; then the server starts alone on core 0 and the run
// lasts until every delivery is marked delivered. Mteja's production server (its delivery worker) against
// a hand-written claim → POST → mark loop over the same tables with the same in-flight caps (20, 4 per
// shop; bench/hand-written-checkout.mjs's startDeliveryLoop), each a process of its own. Then fairness:
// one shop's endpoint hangs (never answers) and the other shop's deliveries must keep their rate.
//
//   node bench/webhooks.mjs [--events 250] [--rounds 3]
import { createServer } from "node:http";
import pg from "pg";
import { randomBytes } from "node:crypto";
import { args, conditions, median, prepare, startServer, writeResults } from "./login-common.mjs";

const events = Number(args.events ?? 250);
const rounds = Number(args.rounds ?? 3);
const caps = { concurrency: 20, tenantConcurrency: 4 };
const adminKey = randomBytes(24).toString("hex");
const settings = { ADMIN_API_KEY: adminKey, WEBHOOK_ALLOW_PRIVATE_URLS: "true", WEBHOOK_CONCURRENCY: String(caps.concurrency), WEBHOOK_TENANT_CONCURRENCY: String(caps.tenantConcurrency) };

const db = await prepare();
const receivers = await startReceivers();
const client = new pg.Client({ connectionString: String(db.database) });
await client.connect();
const results = [];
try {
  const shops = await setUpShops();
  const secrets = Object.fromEntries(shops.flatMap((shop) => shop.endpoints.map((e) => [e.id, e.secret])));
  const servers = [
    { name: "hand-written", target: "webhooks-hand-written", deliveries: { secrets, ...caps } },
    { name: "mteja", target: "mteja", settings },
  ];
  for (let round = 1; round <= rounds; round++) {
    for (const t of servers) {
      const all = await deliverBacklog(t, shops, shops);
      // Fairness: shop A's first endpoint hangs; shop B's backlog alone is timed.
      const [shopA, shopB] = shops;
      receivers.hang(shopA.endpoints[0].path);
      const fair = await deliverBacklog(t, [shopA, shopB], [shopB]);
      receivers.hang(undefined);
      await clearOutbox();
      const row = { round, name: t.name, perSecond: all.perSecond, otherShopAlone: all.perShop[shopB.id], otherShopBesideHanging: fair.perShop[shopB.id] };
      row.kept = row.otherShopBesideHanging / row.otherShopAlone;
      results.push(row);
      console.log(`${t.name.padEnd(14)} ${row.perSecond.toFixed(0)} deliveries/s; shop B ${row.otherShopAlone.toFixed(0)}/s, beside a hanging endpoint ${row.otherShopBesideHanging.toFixed(0)}/s (${(100 * row.kept).toFixed(0)} %)`);
    }
  }
  const figure = (name, key) => median(results.filter((r) => r.name === name).map((r) => r[key]));
  const baseline = figure("hand-written", "perSecond");
  const mteja = figure("mteja", "perSecond");
  const ratio = mteja / baseline;
  const kept = figure("mteja", "kept");
  console.log(`\nWebhook delivery, 2 shops x 4 endpoints, ${events} events per shop, ${rounds} rounds, medians; ${conditions}`);
  console.log(`  hand-written ${baseline.toFixed(0)}/s; Mteja ${mteja.toFixed(0)}/s (${ratio.toFixed(3)}x); beside a hanging endpoint the other shop keeps ${(100 * kept).toFixed(0)} % (hand-written ${(100 * figure("hand-written", "kept")).toFixed(0)} %)`);
  const checks = [
    { what: "webhook deliveries Mteja / hand-written (deliveries/s)", measured: ratio, goal: ">= 0.80", met: ratio >= 0.8 },
    { what: "webhooks: another shop's rate beside a hanging endpoint / alone", measured: kept, goal: ">= 0.80", met: kept >= 0.8 },
  ];
  writeResults("webhooks", { events, rounds, caps, baseline, mteja, ratio, kept, results, checks });
} finally {
  await client.end();
  await receivers.close();
  await db.drop();
}

/** Two shops (the default one and another), each with 4 endpoints at the receivers, made through Mteja's API. */
async function setUpShops() {
  const mteja = await startServer({ target: "mteja", database: db.database, key: db.key, settings });
  try {
    const admin = { authorization: `Bearer ${adminKey}`, "content-type": "application/json" };
    const made = await fetch(`${mteja.url}/api/v1/admin/tenants`, { method: "POST", headers: admin, body: JSON.stringify({ id: "shop-b", name: "Shop B" }) });
    if (made.status >= 300) throw new Error(`tenant: ${made.status} ${await made.text()}`);
    const shops = [];
    for (const id of ["default", "shop-b"]) {
      const keyAnswer = await fetch(`${mteja.url}/api/v1/admin/tenants/${id}/api-keys`, { method: "POST", headers: admin, body: JSON.stringify({ name: "bench" }) });
      const apiKey = (await keyAnswer.json()).data.key;
      const endpoints = [];
      for (let n = 1; n <= 4; n++) {
        const path = `/${id}/${n}`;
        const answer = await fetch(`${mteja.url}/api/v1/webhook-endpoints`, {
          method: "POST",
          headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json", "x-tenant-id": id },
          body: JSON.stringify({ url: `${receivers.url}${path}` }),
        });
        if (answer.status !== 201) throw new Error(`endpoint: ${answer.status} ${await answer.text()}`);
        const { id: endpointId, secret } = (await answer.json()).data;
        endpoints.push({ id: endpointId, secret, path });
      }
      shops.push({ id, endpoints });
    }
    return shops;
  } finally {
    await mteja.stop();
  }
}

/**
 * Writes `events` events per shop of `shops`, each with a delivery per endpoint of its shop, starts the
 * server and times until the deliveries of `timed` shops are all delivered; the server is then stopped.
 */
async function deliverBacklog(target, shops, timed) {
  for (const shop of shops) {
    await client.query(
      `WITH e AS (
         INSERT INTO webhook_events (id, tenant_id, type, body, created_at)
         SELECT 'evt_' || md5(random()::text || n), $1::text, 'payment.succeeded',
                json_build_object('type', 'payment.succeeded', 'tenant_id', $1::text, 'data', json_build_object('n', n))::text, now()
           FROM generate_series(1, $2) n RETURNING id)
       INSERT INTO webhook_deliveries (id, tenant_id, event_id, endpoint_id, status, attempts, next_attempt_at, created_at)
       SELECT gen_random_uuid(), $1::text, e.id, endpoint.id, 'pending', 0, now(), now()
         FROM e CROSS JOIN unnest($3::uuid[]) AS endpoint(id)`,
      [shop.id, events, shop.endpoints.map((e) => e.id)],
    );
  }
  const server = await startServer({ ...target, database: db.database, key: db.key });
  const started = performance.now();
  const perShop = {};
  try {
    const pendingOf = async (tenants) =>
      (await client.query("SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'pending' AND tenant_id = ANY($1)", [tenants])).rows[0].n;
    const waiting = new Set(timed.map((shop) => shop.id));
    while (waiting.size) {
      for (const id of [...waiting]) {
        if ((await pendingOf([id])) === 0) {
          perShop[id] = (events * 4) / ((performance.now() - started) / 1000);
          waiting.delete(id);
        }
      }
      if (performance.now() - started > 300_000) throw new Error(`${target.name}: deliveries not done in 300 s`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    await server.stop();
  }
  const seconds = (performance.now() - started) / 1000;
  return { perSecond: (timed.length * events * 4) / seconds, perShop };
}

/** Every event and delivery gone, for the next run (the hanging endpoint's rows never finish). */
async function clearOutbox() {
  await client.query("DELETE FROM webhook_attempts");
  await client.query("DELETE FROM webhook_deliveries");
  await client.query("DELETE FROM webhook_events");
}

/** 8 receivers as paths of one server on core 1 (answers 200); `hang(path)` makes one path never answer. */
async function startReceivers() {
  let hanging;
  const held = [];
  const server = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      if (request.url === hanging) held.push(response);
      else response.writeHead(200).end("ok");
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    hang(path) {
      hanging = path;
      if (!path) for (const response of held.splice(0)) response.destroy();
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  };
}
