/**
 * `mteja`, the operator command (docs/operations.md#the-operator-command), run as the built binary on
 * the database of the project (a PostgreSQL scratch database, or an embedded one in a directory), and
 * the service started on that database afterwards to see what the command did. Needs `apps/api/dist`.
 */
import { createScratchDatabase, openDatabase, readMigrations } from "@mteja/db";
import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect } from "vitest";
import { startSmtpReceiver } from "@mteja/test-support/smtp-receiver";
import { registerUser, RestClient, startTestApp, type TestApp } from "./support/app.js";
import { cliBuilt, runCli } from "./support/cli.js";
import { testClock } from "./support/clock.js";
import { adminUrl, skipThisTarget, target, type TestDatabase } from "./support/database.js";
import { it } from "./support/fixture.js";
import { redisUrl, skipRedis } from "./support/limits.js";
import { freePort } from "./support/ports.js";
import { CONSUMER_KEY, CONSUMER_SECRET, PASSKEY, SHORTCODE } from "./support/simulator.js";
import { waitFor } from "./support/wait.js";

const day = 86_400_000;
const dataKey = "cd".repeat(32);

/** A database the command (another process) and the test can both reach, one at a time on embedded. */
async function sharedDatabase(): Promise<{ env: Record<string, string>; open: () => ReturnType<typeof openDatabase>; drop: () => Promise<void> }> {
  if (target === "postgres") {
    const scratch = await createScratchDatabase(adminUrl, "mteja_cli");
    return { env: { DATABASE_URL: scratch.url }, open: () => openDatabase({ url: scratch.url, poolMax: 5 }), drop: () => scratch.drop() };
  }
  const dir = mkdtempSync(path.join(tmpdir(), "mteja-cli-"));
  return { env: { DATA_DIR: dir }, open: () => openDatabase({ dataDir: dir }), drop: async () => rmSync(dir, { recursive: true, force: true }) };
}

// Operators run the command against PostgreSQL; the embedded database's files (start, kill -9, restart on
// the same DATA_DIR) are process.test.ts's. Once is enough for CI's time.
describe.skipIf(skipThisTarget || !cliBuilt || target !== "postgres")("mteja, the operator command", () => {
  let shared: Awaited<ReturnType<typeof sharedDatabase>>;
  let env: Record<string, string>;
  const mteja = (args: string[], extra: Record<string, string> = {}) => runCli(args, { ...env, ...extra });
  afterAll(async () => {
    await shared?.drop();
  });

  /** The service on the shared database while `work` runs (closed after: the embedded database has one owner). */
  async function withService<T>(work: (app: TestApp) => Promise<T>, options: { now?: () => Date; env?: Record<string, string> } = {}): Promise<T> {
    const db = await shared.open();
    const database: TestDatabase = { db, url: env.DATABASE_URL, drop: () => db.close() };
    const app = await startTestApp({ DATA_ENCRYPTION_KEY: dataKey, ...options.env }, { database, ...(options.now ? { now: options.now } : {}) });
    try {
      return await work(app);
    } finally {
      await app.close();
      await db.close();
    }
  }

  it("doctor names the missing migrations; migrate applies them and exits; a second migrate has nothing to do", { timeout: 180_000 }, async () => {
    shared = await sharedDatabase();
    env = { NODE_ENV: "test", DATA_ENCRYPTION_KEY: dataKey, ...shared.env };
    const names = (await readMigrations()).map((m) => m.name);

    const before = await mteja(["doctor"]);
    expect(before.code).toBe(1);
    expect(before.stdout).toContain(`FAIL  database: ${names.length} migration(s) not applied yet`);
    expect(before.stdout).toContain("run `mteja migrate`");

    const first = await mteja(["migrate"]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.json).toEqual({ applied: names });
    const second = await mteja(["migrate"]);
    expect(second.json).toEqual({ applied: [] });
  });

  it("creates, lists and disables tenants and creates, lists and revokes API keys; the service sees each change", { timeout: 180_000 }, async () => {
    const created = await mteja(["tenants", "create", "shop-cli", "Duka la CLI"]);
    expect(created.code, created.stderr).toBe(0);
    expect(created.json).toMatchObject({ id: "shop-cli", name: "Duka la CLI", active: true });
    const again = await mteja(["tenants", "create", "shop-cli", "Duka la CLI"]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("A tenant with this id already exists.");
    const bad = await mteja(["tenants", "create", "Not A Slug!", "x"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^\s+id: /m);
    const listed = await mteja(["tenants", "list"]);
    expect(listed.json.map((tenant: { id: string }) => tenant.id)).toContain("shop-cli");

    const key = await mteja(["api-keys", "create", "shop-cli", "Backend"]);
    expect(key.code, key.stderr).toBe(0);
    expect(key.json.key).toMatch(/^mk_/);
    const keys = await mteja(["api-keys", "list", "shop-cli"]);
    expect(keys.json.api_keys).toEqual([expect.objectContaining({ id: key.json.id, name: "Backend", revoked_at: null })]);
    expect(keys.stdout).not.toContain(key.json.key);
    const unknown = await mteja(["api-keys", "list", "no-such-shop"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("No tenant has this id.");

    const endpoints = (app: TestApp) => new RestClient(app.url, "").request("GET", "/api/v1/webhook-endpoints", { token: key.json.key });
    await withService(async (app) => expect((await endpoints(app)).status).toBe(200));
    const revoked = await mteja(["api-keys", "revoke", "shop-cli", key.json.id]);
    expect(revoked.json).toEqual({ revoked: key.json.id });
    await withService(async (app) => expect((await endpoints(app)).status).toBe(401));

    const disabled = await mteja(["tenants", "disable", "shop-cli"]);
    expect(disabled.json).toMatchObject({ id: "shop-cli", active: false });
    await withService(async (app) => {
      const res = await new RestClient(app.url, "shop-cli").post("/api/v1/auth/register", { name: "Juma", email: "juma@example.com", password: "correct horse battery" });
      expect(res.body.error.code).toBe("TENANT_NOT_FOUND");
    });
  });

  it("keys rotate: tokens of the previous key keep working until they expire, new ones use the new key, the JWKS lists both, then only the new one", { timeout: 180_000 }, async () => {
    const clock = testClock();
    const ttl = { ACCESS_TOKEN_TTL_SECONDS: "60" };
    const kidOf = (token: string): string => JSON.parse(Buffer.from(token.split(".")[0]!, "base64url").toString()).kid;
    const jwks = async (app: TestApp) => ((await (await fetch(`${app.url}/.well-known/jwks.json`)).json()) as { keys: Array<{ kid: string }> }).keys.map((k) => k.kid);
    const before = await withService(async (app) => registerUser(new RestClient(app.url)), { now: clock.now, env: ttl });

    const rotated = await mteja(["keys", "rotate"], ttl);
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(rotated.json.retired.kid).toBe(kidOf(before.accessToken));
    expect(rotated.json.kid).not.toBe(rotated.json.retired.kid);
    // The previous key's last token ends 60 s after the rotation; 5 minutes of margin for instances still signing with it.
    const notAfter = Date.parse(rotated.json.retired.not_after);
    expect(notAfter - Date.now()).toBeGreaterThan(355_000);
    expect(notAfter - Date.now()).toBeLessThanOrEqual(360_000);

    await withService(
      async (app) => {
        const client = new RestClient(app.url);
        clock.advance(30);
        expect((await client.get("/api/v1/auth/me", before.accessToken)).status).toBe(200);
        const after = await registerUser(client);
        expect(kidOf(after.accessToken)).toBe(rotated.json.kid);
        expect(await jwks(app)).toEqual([rotated.json.kid, rotated.json.retired.kid]);
        // Its lifetime over, the old token is refused; the previous key stays published until not_after, then leaves.
        clock.advance(31);
        expect((await client.get("/api/v1/auth/me", before.accessToken)).status).toBe(401);
        clock.advance((notAfter - clock.now().getTime()) / 1000 - 2);
        expect(await jwks(app)).toEqual([rotated.json.kid, rotated.json.retired.kid]);
        clock.advance(3);
        expect(await jwks(app)).toEqual([rotated.json.kid]);
      },
      { now: clock.now, env: ttl },
    );

    const configured = await mteja(["keys", "rotate"], {
      JWT_PRIVATE_KEY: generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({ format: "pem", type: "pkcs8" }).toString(),
    });
    expect(configured.code).toBe(1);
    expect(configured.stderr).toContain("JWT_PRIVATE_KEY is set");
  });

  it("prune deletes what is older than the retention settings and nothing else; two prunes at once share the work", { timeout: 180_000 }, async () => {
    // Three customers signed out 40 days ago and three 20 days ago (the service's clock, then the command's real one).
    const signOut = async (app: TestApp) => {
      const client = new RestClient(app.url);
      const user = await registerUser(client);
      expect((await client.post("/api/v1/auth/logout")).status).toBe(200);
      return user;
    };
    const roundAt = async (ago: number) => {
      const clock = testClock(Date.now() - ago);
      return withService(
        async (app) => {
          const users = [await signOut(app), await signOut(app), await signOut(app)];
          await waitFor(async () => (await app.deps.db.unscoped("test").mailOutbox.count({ where: { sentAt: null } })) === 0);
          return users;
        },
        { now: clock.now },
      );
    };
    const old = await roundAt(40 * day);
    const recent = await roundAt(20 * day);
    const settings = { RETENTION_ENDED_SESSIONS_DAYS: "30", RETENTION_SENT_MAIL_DAYS: "30", RETENTION_ONE_TIME_TOKENS_DAYS: "30", PRUNE_BATCH_SIZE: "1" };

    // Two at once on PostgreSQL (the embedded database has one process at a time).
    const runs = target === "postgres" ? await Promise.all([mteja(["prune"], settings), mteja(["prune"], settings)]) : [await mteja(["prune"], settings)];
    for (const run of runs) expect(run.code, run.stderr).toBe(0);
    const total = (kind: string) => runs.reduce((sum, run) => sum + run.json.deleted[kind], 0);
    expect(total("ended_sessions")).toBe(3);
    expect(total("sent_mail")).toBe(3);
    expect(total("one_time_tokens")).toBe(3);
    expect(total("callbacks")).toBe(0);

    const db = await shared.open();
    try {
      const ids = (users: Array<{ id: string }>) => ({ in: users.map((u) => u.id) });
      expect(await db.unscoped("test").session.count({ where: { userId: ids(old) } })).toBe(0);
      expect(await db.unscoped("test").session.count({ where: { userId: ids(recent) } })).toBe(3);
      expect(await db.unscoped("test").oneTimeToken.count({ where: { userId: ids(recent) } })).toBe(3);
      expect(await db.unscoped("test").mailOutbox.count({ where: { toAddress: { in: recent.map((u) => u.email) } } })).toBe(3);
      expect(await db.unscoped("test").user.count({ where: { id: ids([...old, ...recent]) } })).toBe(6);
    } finally {
      await db.close();
    }
  });

  it("doctor says in words what is wrong, exits 1, and exits 0 when everything answers", { timeout: 180_000 }, async ({ sim }) => {
    const momo = {
      MOMO_BASE_URL: sim.url,
      MOMO_CONSUMER_KEY: CONSUMER_KEY,
      MOMO_SHORTCODE: SHORTCODE,
      MOMO_PASSKEY: PASSKEY,
      MOMO_CALLBACK_URL: "https://api.example.co.ke/api/momo/callback/stkpush",
      MOMO_CALLBACK_SECRET: "e".repeat(64),
    };

    const broken = await mteja(["doctor"], { ACCESS_TOKEN_TTL_SECONDS: "5", REDIS_URL: "http://cache:6379", RETENTION_CALLBACKS_DAYS: "-1" });
    expect(broken.code).toBe(1);
    expect(broken.stdout).toContain("FAIL  settings: ACCESS_TOKEN_TTL_SECONDS:");
    expect(broken.stdout).toContain("FAIL  settings: REDIS_URL: REDIS_URL must be a URL");
    expect(broken.stdout).toContain("FAIL  settings: RETENTION_CALLBACKS_DAYS: RETENTION_CALLBACKS_DAYS must be 0 (keep for ever) or more");

    const closed = await freePort();
    const unreachable = await mteja(["doctor"], { ...momo, MOMO_CONSUMER_SECRET: "not-the-secret", REDIS_URL: `redis://127.0.0.1:${closed}`, SMTP_URL: `smtp://127.0.0.1:${closed}` });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stdout).toContain("FAIL  redis: cannot reach Redis at REDIS_URL");
    expect(unreachable.stdout).toContain("FAIL  smtp: SMTP_URL: the SMTP server cannot be used");
    expect(unreachable.stdout).toMatch(/FAIL {2}daraja: Daraja at http:\/\/127\.0\.0\.1:\d+ refused MOMO_CONSUMER_KEY\/MOMO_CONSUMER_SECRET/);
    expect(unreachable.stdout).toContain("OK    database:");

    const wrongKey = await mteja(["doctor"], { DATA_ENCRYPTION_KEY: "ef".repeat(32) });
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stdout).toContain("FAIL  data encryption key: DATA_ENCRYPTION_KEY cannot decrypt the stored signing key");

    const smtp = await startSmtpReceiver();
    try {
      const healthy = await mteja(["doctor"], { ...momo, MOMO_CONSUMER_SECRET: CONSUMER_SECRET, SMTP_URL: smtp.url, ...(skipRedis ? {} : { REDIS_URL: redisUrl }) });
      expect(healthy.code, healthy.stdout).toBe(0);
      expect(healthy.stdout).toContain("OK    daraja:");
      expect(healthy.stdout).toContain("OK    smtp:");
      expect(healthy.stdout).toContain("OK    data encryption key: DATA_ENCRYPTION_KEY opens the stored signing key");
      expect(healthy.stdout).toContain("Nothing wrong found.");
    } finally {
      await smtp.stop();
    }
  });

  it("doctor warns of the shops whose C2B still accepts the old shared secret, and says to register their URLs again", { timeout: 180_000 }, async () => {
    const momo = { MOMO_CALLBACK_SECRET: "e".repeat(64), MOMO_SHORTCODE: SHORTCODE };
    const db = await shared.open();
    try {
      const shop = (id: string, shortcode: string | null, form: "shared" | "tenant", active = true) =>
        db.unscoped("test").tenant.create({ data: { id, name: id, active, c2bCallbackTokenForm: form, settings: shortcode ? { momo: { shortcode } } : {} } });
      // From before shop tokens and not registered since, with a short code to be paid into: on the old form.
      await shop("c2b-old-a", "600701", "shared");
      await shop("c2b-old-b", "600702", "shared");
      // Registered since; without a short code (no C2B at all); disabled: none of them accepts C2B with the secret.
      await shop("c2b-registered", "600703", "tenant");
      await shop("c2b-no-code", null, "shared");
      await shop("c2b-disabled", "600704", "shared", false);
      // The default shop is paid into MOMO_SHORTCODE: it counts too while it is on the old form.
      await db.unscoped("test").tenant.updateMany({ where: { id: "default" }, data: { c2bCallbackTokenForm: "shared" } });
    } finally {
      await db.close();
    }

    const warned = await mteja(["doctor"], momo);
    expect(warned.code, warned.stdout).toBe(0);
    expect(warned.stdout).toContain(
      "WARN  c2b callback tokens: 3 shop(s) still accept MOMO_CALLBACK_SECRET itself on their C2B URLs (c2b-old-a, c2b-old-b, default): register their C2B URLs again (POST /api/v1/admin/tenants/:id/c2b/register) so that only their own token is accepted",
    );
    // Without a callback secret no callback is accepted at all: nothing to say.
    expect((await mteja(["doctor"])).stdout).toContain("SKIP  c2b callback tokens: MOMO_CALLBACK_SECRET is unset");

    const after = await shared.open();
    try {
      await after.unscoped("test").tenant.updateMany({ where: { id: { in: ["c2b-old-a", "c2b-old-b", "default"] } }, data: { c2bCallbackTokenForm: "tenant" } });
    } finally {
      await after.close();
    }
    expect((await mteja(["doctor"], momo)).stdout).toContain("OK    c2b callback tokens: every shop with a C2B short code accepts only its own token");
  });
});
