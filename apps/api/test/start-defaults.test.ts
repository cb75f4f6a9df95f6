/**
 * The built service started as operators start it (`node apps/api/dist/main.js`): without NODE_ENV it
 * is a production start — no dev outbox, no demo, listening on every interface — and it logs one
 * warning per unsafe production setting it was given. The dev start (NODE_ENV=development,
 * MTEJA_DEV_START=1, as `npm start` sets them) listens on loopback only unless HOST is set. On one core
 * it says to start node with --single-threaded-gc.
 * Embedded project only; needs `apps/api/dist` (the test command builds it).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, networkInterfaces, tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { oneCoreGcHint, singleThreadedGcFlag } from "../src/runtime/one-core-gc.js";
import { productionWarnings } from "../src/runtime/production-warnings.js";
import { readSettings } from "../src/settings.js";
import { target } from "./support/database.js";

const main = fileURLToPath(new URL("../dist/main.js", import.meta.url));
const built = existsSync(main);
if (!built && process.env.CI === "true" && target === "embedded") throw new Error("apps/api/dist/main.js is missing: build before testing");

const networkAddress = Object.values(networkInterfaces())
  .flat()
  .find((entry) => entry && entry.family === "IPv4" && !entry.internal)?.address;

interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

interface Running {
  child: ChildProcess;
  port: number;
  lines: LogLine[];
  /** Whatever the process wrote that is not a JSON log line. */
  stray: string[];
}

/**
 * Starts the built service with exactly these variables (plus PATH): nothing leaks in from the test runner
 * (vitest sets NODE_ENV=test). `onCores`: the CPUs it may run on (through taskset), as a CPU limit would.
 */
function start(env: Record<string, string>, { onCores }: { onCores?: string } = {}): Promise<Running> {
  const [command, ...args] = onCores ? ["taskset", "-c", onCores, process.execPath, main] : [process.execPath, main];
  const child = spawn(command!, args, { env: { PATH: process.env.PATH ?? "", ...env }, stdio: ["ignore", "pipe", "pipe"] });
  const running: Running = { child, port: 0, lines: [], stray: [] };
  let pending = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start within 30 s:\n${JSON.stringify(running)}`)), 30_000);
    const onData = (chunk: Buffer) => {
      pending += chunk.toString();
      const complete = pending.split("\n");
      pending = complete.pop() ?? "";
      for (const text of complete.filter(Boolean)) {
        try {
          running.lines.push(JSON.parse(text) as LogLine);
        } catch {
          running.stray.push(text);
        }
      }
      const listening = running.lines.find((line) => line.msg === "Mteja is listening");
      if (listening) {
        clearTimeout(timer);
        const address = running.lines.map((line) => /Server listening at http:\/\/[^:]+:(\d+)/.exec(line.msg)).find(Boolean);
        running.port = Number(address?.[1]);
        resolve(running);
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(Object.assign(new Error(`exited with ${code} before listening:\n${running.lines.map((l) => l.msg).join("\n")}\n${running.stray.join("\n")}`), { code, running }));
    });
  });
}

const listenedOn = (running: Running) =>
  running.lines.flatMap((line) => /Server listening at (http:\/\/\S+)/.exec(line.msg)?.[1] ?? []).map((url) => new URL(url).hostname);

describe.skipIf(target !== "embedded" || !built)("how the built service starts", () => {
  const dataDirs: string[] = [];
  const children: ChildProcess[] = [];
  const dataDir = () => {
    const dir = mkdtempSync(path.join(tmpdir(), "mteja-start-"));
    dataDirs.push(dir);
    return dir;
  };
  afterAll(() => {
    for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  });

  it("is a production start without NODE_ENV: no dev outbox, no demo, every interface, a warning per unsafe setting", async () => {
    const running = await start({
      PORT: "0",
      DATA_DIR: dataDir(),
      COOKIE_SECURE: "false",
      RATE_LIMITS: "off",
      TRUST_PROXY: "true",
      CORS_ORIGINS: "http://shop.example.test,https://safe.example.test",
    });
    children.push(running.child);
    const local = `http://127.0.0.1:${running.port}`;

    expect((await fetch(`${local}/healthz`)).status).toBe(200);
    expect((await fetch(`${local}/dev/outbox`)).status).toBe(404);
    expect((await fetch(`${local}/demo/`)).status).toBe(404);
    expect(listenedOn(running)).toContain("127.0.0.1");
    if (networkAddress) expect(listenedOn(running)).toContain(networkAddress);

    const warned = running.lines.filter((line) => line.level === 40 && typeof line.setting === "string");
    expect(warned.map((line) => line.setting).sort()).toEqual(
      ["APP_URL", "COOKIE_SECURE", "CORS_ORIGINS", "DATABASE_URL", "DATA_ENCRYPTION_KEY", "METRICS_TOKEN", "RATE_LIMITS", "SMS_PROVIDER", "SMTP_URL", "TRUST_PROXY"].sort(),
    );
    expect(warned.find((line) => line.setting === "CORS_ORIGINS")?.msg).toContain("http://shop.example.test");
    expect(warned.find((line) => line.setting === "CORS_ORIGINS")?.msg).not.toContain("https://safe.example.test");
    expect(running.stray).toEqual([]);
  }, 60_000);

  it.skipIf(!networkAddress)("listens on loopback only on the dev start without HOST, and warns about nothing", async () => {
    const running = await start({ PORT: "0", DATA_DIR: dataDir(), NODE_ENV: "development", MTEJA_DEV_START: "1", MOMO_SIMULATOR: "off" });
    children.push(running.child);

    expect(listenedOn(running)).toEqual(["127.0.0.1"]);
    expect((await fetch(`http://127.0.0.1:${running.port}/dev/outbox`)).status).toBe(200);
    await expect(fetch(`http://${networkAddress}:${running.port}/healthz`)).rejects.toThrow();
    expect(running.lines.filter((line) => line.level >= 40)).toEqual([]);
    expect(running.lines.some((line) => line.devAdminApiKey === "mteja-dev-admin-key")).toBe(true);
  }, 60_000);
});

const hasTaskset = spawnSync("taskset", ["-V"]).status === 0;

describe.skipIf(target !== "embedded" || !built)("a start on one core", () => {
  it.skipIf(!hasTaskset)("says to start node with --single-threaded-gc; on every core it says nothing of it", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "mteja-start-"));
    const gcHints = (running: Running) => running.lines.filter((line) => line.msg.includes(singleThreadedGcFlag));
    try {
      const oneCore = await start({ PORT: "0", DATA_DIR: dataDir }, { onCores: "0" });
      oneCore.child.kill("SIGKILL");
      expect(gcHints(oneCore)).toEqual([expect.objectContaining({ level: 30, cores: 1 })]);
      if (availableParallelism() > 1) {
        const everyCore = await start({ PORT: "0", DATA_DIR: dataDir });
        everyCore.child.kill("SIGKILL");
        expect(gcHints(everyCore)).toEqual([]);
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);

  it("is said only on one core and only without the flag", () => {
    expect(oneCoreGcHint(1, [])).toContain(singleThreadedGcFlag);
    expect(oneCoreGcHint(1, ["--enable-source-maps"])).toContain(singleThreadedGcFlag);
    expect(oneCoreGcHint(1, [singleThreadedGcFlag])).toBeUndefined();
    expect(oneCoreGcHint(2, [])).toBeUndefined();
  });
});

describe.skipIf(target !== "embedded" || !built)("a start that cannot reach Redis", () => {
  it("stops with one JSON line naming the error, and no raw ioredis output", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "mteja-start-"));
    try {
      // Port 1 on loopback: nothing listens there, the connection is refused at once.
      const failed = (await start({ PORT: "0", DATA_DIR: dataDir, REDIS_URL: "redis://127.0.0.1:1" }).then(
        () => undefined,
        (error: unknown) => error,
      )) as { code: number; running: Running } | undefined;
      expect(failed?.code).toBe(1);
      const fatal = failed!.running.lines.find((line) => line.level === 60);
      expect(fatal).toMatchObject({ msg: "start failed", err: { message: expect.any(String) } });
      expect(failed!.running.stray).toEqual([]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe("the unsafe-production-settings list", () => {
  const safe = {
    NODE_ENV: "production",
    DATABASE_URL: "postgres://mteja@db.internal:5432/mteja",
    REDIS_URL: "redis://redis.internal:6379",
    SMTP_URL: "smtp://mail.internal:587",
    MAIL_FROM: "Duka <no-reply@duka.example>",
    APP_URL: "https://duka.example",
    DATA_ENCRYPTION_KEY: "0".repeat(64),
    TRUST_PROXY: "10.0.0.0/8",
    METRICS_TOKEN: "metrics-token-0123456789",
    CORS_ORIGINS: "https://duka.example",
    SMS_PROVIDER: "africastalking",
    AT_USERNAME: "duka",
    AT_API_KEY: "atsk_0123456789",
    SMS_CALLBACK_SECRET: "0123456789abcdef0123456789abcdef",
  };

  it("is empty for a production setup done by the checklist, and outside production", () => {
    expect(productionWarnings(readSettings(safe))).toEqual([]);
    expect(productionWarnings(readSettings({ ...safe, NODE_ENV: "development", COOKIE_SECURE: "false", RATE_LIMITS: "off" }))).toEqual([]);
  });

  it("names the shared-state settings of a multi-instance setup, the default sender and Daraja's sandbox", () => {
    const settings = (extra: Record<string, string>) => productionWarnings(readSettings({ ...safe, ...extra })).map((w) => w.setting);
    const { REDIS_URL: _redis, ...withoutRedis } = safe;
    expect(productionWarnings(readSettings(withoutRedis)).map((w) => w.setting)).toEqual(["REDIS_URL"]);
    expect(settings({ MAIL_FROM: "no-reply@mteja.local" })).toEqual(["MAIL_FROM"]);
    const { SMS_CALLBACK_SECRET: _smsSecret, ...withoutReports } = safe;
    expect(productionWarnings(readSettings(withoutReports)).map((w) => w.setting)).toEqual(["SMS_CALLBACK_SECRET"]);
    const { METRICS_TOKEN: _token, ...withoutToken } = safe;
    expect(productionWarnings(readSettings(withoutToken)).map((w) => w.setting)).toEqual(["METRICS_TOKEN"]);
    const momo = {
      MOMO_BASE_URL: "https://sandbox.safaricom.co.ke",
      MOMO_CONSUMER_KEY: "key",
      MOMO_CONSUMER_SECRET: "secret",
      MOMO_SHORTCODE: "174379",
      MOMO_PASSKEY: "passkey",
      MOMO_CALLBACK_URL: "https://duka.example/api/momo/callback/stkpush",
      MOMO_CALLBACK_SECRET: "a".repeat(64),
    };
    expect(settings(momo)).toEqual(["MOMO_CALLBACK_ALLOWED_IPS", "MOMO_BASE_URL"]);
    expect(settings({ ...momo, MOMO_BASE_URL: "https://api.safaricom.co.ke", MOMO_CALLBACK_ALLOWED_IPS: "196.201.214.200" })).toEqual([]);
    expect(settings({ WEBHOOK_ALLOW_PRIVATE_URLS: "true" })).toEqual(["WEBHOOK_ALLOW_PRIVATE_URLS"]);
  });
});
