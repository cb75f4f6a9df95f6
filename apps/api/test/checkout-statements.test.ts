/**
 * What one checkout costs in database round trips (docs/performance.md, "Checkout"): the statements of
 * each step a shop's checkout takes — the intent created with an API key, the prompt paying it, and the
 * success callback that settles both — and which of them went through Prisma, whose client costs
 * several times a plain statement's CPU. PostgreSQL only: the embedded database has no round trips.
 */
import { describe, expect } from "vitest";
import { adminKey, RestClient } from "./support/app.js";
import { it } from "./support/fixture.js";
import { skipThisTarget, target } from "./support/database.js";
import { postCallback, stkCallbackBody, uniqueReceipt, type DarajaApp } from "./support/daraja.js";
import type { Simulator } from "./support/simulator.js";
import { watchStatements, type SeenStatement } from "./support/statements.js";

it.override({ simOptions: { callbacks: false } });

const listing = (seen: SeenStatement[]) => seen.map((s) => `${s.viaPrisma ? "prisma" : "plain "} ${s.text.slice(0, 110)}`).join("\n");

describe.skipIf(skipThisTarget || target !== "postgres")("checkout round trips", () => {
  let t: DarajaApp;
  let sim: Simulator;
  let key: string;
  const watch = watchStatements();

  it.beforeAll(async ({ sim: simulator, launch }) => {
    sim = simulator;
    t = await launch.momo({ darajaUrl: sim.url });
    const created = await new RestClient(t.url, "").request("POST", "/api/v1/admin/tenants/default/api-keys", { body: { name: "Shop backend" }, headers: { authorization: `Bearer ${adminKey}` } });
    key = created.body.data.key;
    // The key's first use records its last_used_at (at most once a minute): not a checkout's statement.
    expect((await t.rest.request("GET", "/api/v1/payment-intents", { token: key })).status).toBe(200);
  });

  it("creates an intent, pays it and settles it with plain statements only, each prepared by name", async () => {
    const user = await t.customer();
    const reference = `ORD${Date.now().toString(36).slice(-6)}`;
    watch.start();
    const created = await t.rest.request("POST", "/api/v1/payment-intents", { body: { amount: 100, reference }, token: key });
    const creating = watch.stop();
    expect(created.status).toBe(201);
    watch.start();
    const pushed = await t.rest.post("/api/momo/stkpush", { phone: "0712345678", intent_id: created.body.data.id }, user.accessToken);
    const prompting = watch.stop();
    expect(pushed.status).toBe(200);
    const ids = pushed.body.data as { checkoutRequestId: string; merchantRequestId: string };
    // The prompt's own CallBackURL, as Daraja calls it back: it says the prompt pays an intent.
    const prompt = (await sim.requests()).requests.filter((r) => r.path.endsWith("/stkpush/v1/processrequest")).at(-1)!;
    const callBackUrl = prompt.body.CallBackURL as string;
    expect(new URL(callBackUrl).searchParams.get("intent")).toBe("1");
    watch.start();
    const answer = await postCallback(callBackUrl, stkCallbackBody(ids, 0, { amount: 100, receipt: uniqueReceipt(), phone: "254712345678" }));
    const settling = watch.stop();
    expect(answer.status).toBe(200);
    const intent = await t.rest.request("GET", `/api/v1/payment-intents/${created.body.data.id}`, { token: key });
    expect(intent.body.data.status).toBe("succeeded");

    const all = [...creating, ...prompting, ...settling];
    const listed = `CREATE\n${listing(creating)}\nPROMPT\n${listing(prompting)}\nCALLBACK\n${listing(settling)}`;
    expect(all.filter((statement) => statement.viaPrisma), listed).toEqual([]);
    const unprepared = all.filter((statement) => !statement.prepared && statement.text !== "BEGIN" && statement.text !== "COMMIT");
    expect(unprepared, listed).toEqual([]);
    // The intent: the API key; the insert (which an open intent's reference refuses), with the due-intent look.
    expect(creating, listed).toHaveLength(2);
    // The prompt: the session; the intent with the due-intent look; the payment stored with the intent
    // started; Daraja's ids stored; the callbacks held for them.
    expect(prompting, listed).toHaveLength(5);
    expect(prompting[2]!.text, listed).toMatch(/^WITH started AS \( UPDATE payment_intents .* INSERT INTO payments/);
    // The callback (its URL says the prompt pays an intent): stored; BEGIN, the payment locked, the intent
    // moved to succeeded (and read back), the payment settled with its event, the intent's event (written
    // from what was read: the intent has no other payment, which its statement checks), COMMIT.
    expect(settling, listed).toHaveLength(7);
    expect(settling.filter((statement) => statement.text.includes("LEFT JOIN payments")), listed).toEqual([]);
  });
});
