/**
 * What one STK success callback costs in database round trips (docs/performance.md, "Callback
 * ingestion"): every statement the service's pg clients send between the request and its answer,
 * counted. PostgreSQL only: the embedded database is in process and has no round trips to save.
 */
import { createRequire } from "node:module";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import { skipThisTarget, target } from "./support/database.js";
import { postCallback, stkCallbackBody, uniqueReceipt, type MomoApp } from "./support/momo.js";

// The pg the db package and its Prisma adapter load: every statement goes through Client#query.
const dbRequire = createRequire(new URL("../../../packages/db/package.json", import.meta.url));
const pgCopies = [...new Set([dbRequire("pg"), createRequire(dbRequire.resolve("@prisma/adapter-pg"))("pg")])] as {
  Client: { prototype: { query: (...args: unknown[]) => unknown } };
}[];

it.override({ simOptions: { callbacks: false } });

describe.skipIf(skipThisTarget || target !== "postgres")("STK callback round trips", () => {
  let t: MomoApp;
  let seen: string[] | undefined;
  const originals = pgCopies.map((pg) => pg.Client.prototype.query);

  beforeAll(() => {
    pgCopies.forEach((pg, i) => {
      const original = originals[i]!;
      pg.Client.prototype.query = function (this: unknown, ...args: unknown[]) {
        const config = args[0] as string | { text?: string } | undefined;
        const text = typeof config === "string" ? config : config?.text;
        seen?.push(String(text).replace(/\s+/g, " ").trim());
        return original.apply(this, args);
      };
    });
  });
  afterAll(() => pgCopies.forEach((pg, i) => (pg.Client.prototype.query = originals[i]!)));

  it.beforeAll(async ({ sim, launch }) => {
    t = await launch.momo({ darajaUrl: sim.url });
  });

  it("settles a payment in 6 statements: stored (its own commit); BEGIN, payment lock with its receipt check, update with its event and deliveries, stored outcome, COMMIT", async () => {
    const user = await t.customer();
    const pushed = await t.rest.post("/api/momo/stkpush", { phone: "0712345678", amount: 100 }, user.accessToken);
    const ids = pushed.body.data as { checkoutRequestId: string; merchantRequestId: string };
    seen = [];
    const answer = await postCallback(t.callbackUrl("stkpush"), stkCallbackBody(ids, 0, { amount: 100, receipt: uniqueReceipt(), phone: "254712345678" }));
    // The webhook worker's claim, woken by the settlement, runs beside the request, not in it.
    const statements = seen.filter((text) => !text.startsWith("WITH due"));
    seen = undefined;
    expect(answer.status).toBe(200);
    expect((await t.deps.db.unscoped.payment.findUniqueOrThrow({ where: { checkoutRequestId: ids.checkoutRequestId } })).status).toBe("SUCCESS");
    expect(statements, statements.join("\n")).toHaveLength(6);
  });
});
