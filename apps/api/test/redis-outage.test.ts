/**
 * A Redis outage is visible and survivable: with REDIS_URL set and Redis stopped, sign-ins go on
 * under per-instance limits, the process writes one structured warning (not ioredis's raw lines, not a
 * line per failed attempt), /readyz says `redis: "unavailable"` while staying 200, and
 * mteja_rate_limit_store_shared drops to 0. When Redis is back: one info line, "connected", 1.
 * Runs its own redis-server on a free port, so stopping it disturbs nobody.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { Writable } from "node:stream";
import { afterAll, describe, expect, vi } from "vitest";
import { it } from "./support/fixture.js";
import { registerUser, RestClient, type TestApp } from "./support/app.js";
import { skipDatabaseAgnostic } from "./support/database.js";
import { waitFor } from "./support/wait.js";
import { sample } from "./support/metrics.js";
import { freePort } from "./support/ports.js";

const haveRedisServer = spawnSync("redis-server", ["--version"]).status === 0;

/** A throwaway redis-server (no persistence); resolves once it accepts connections. */
function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis-server did not start:\n${output}`)), 10_000);
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("Ready to accept connections")) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${code}:\n${output}`));
    });
  });
}

function stopRedis(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGKILL");
  });
}

type Line = Record<string, any>;

describe.skipIf(skipDatabaseAgnostic || !haveRedisServer)("a Redis outage", () => {
  const raw: string[] = [];
  const lines = () => raw.map((text) => JSON.parse(text) as Line);
  const storeLines = () => lines().filter((line) => line.redis !== undefined && line.level >= 30);
  let port: number;
  let redis: ChildProcess | undefined;
  let t: TestApp;
  const consoleError = vi.spyOn(console, "error");

  const readiness = async () => {
    const response = await fetch(`${t.url}/readyz`);
    return { status: response.status, body: (await response.json()) as Line };
  };
  const shared = async () => sample(await (await fetch(`${t.url}/metrics`)).text(), "mteja_rate_limit_store_shared");

  it.beforeAll(async ({ launch }) => {
    port = await freePort();
    redis = await startRedis(port);
    const logStream = new Writable({
      write(chunk, _encoding, callback) {
        raw.push(...String(chunk).split("\n").filter(Boolean));
        callback();
      },
    });
    t = await launch.app({ REDIS_URL: `redis://127.0.0.1:${port}`, REDIS_KEY_PREFIX: `outage-${port}`, LOG_LEVEL: "debug" }, { logStream });
  });
  afterAll(async () => {
    if (redis && redis.exitCode === null) await stopRedis(redis);
    consoleError.mockRestore();
  });

  it("is reported once, keeps sign-ins working under per-instance limits, and its end is reported once", async () => {
    const client = new RestClient(t.url);
    const user = await registerUser(client);
    // On PostgreSQL the listening connection of status notices is reported beside Redis, connected by now.
    const listening = t.database.db.kind === "postgres" ? { status_listener: "connected" } : {};
    expect(await readiness()).toEqual({ status: 200, body: { status: "ready", database: t.database.db.kind, redis: "connected", ...listening } });
    expect(await shared()).toBe(1);

    await stopRedis(redis!);
    const degraded = await waitFor(async () => {
      const ready = await readiness();
      return ready.body.redis === "unavailable" && ready;
    });
    expect(degraded).toEqual({ status: 200, body: { status: "degraded", database: t.database.db.kind, redis: "unavailable", ...listening } });
    expect(await shared()).toBe(0);

    // Sign-ins go on, counted in this instance's memory: the right password passes, wrong ones are refused.
    for (let i = 0; i < 3; i += 1) {
      expect((await client.post("/api/v1/auth/login", { email: user.email, password: user.password })).status).toBe(200);
      expect((await client.post("/api/v1/auth/login", { email: user.email, password: "wrong password" })).status).toBe(401);
    }

    redis = await startRedis(port);
    await waitFor(async () => (await readiness()).body.redis === "connected");
    expect(await readiness()).toEqual({ status: 200, body: { status: "ready", database: t.database.db.kind, redis: "connected", ...listening } });
    expect(await shared()).toBe(1);
    expect((await client.post("/api/v1/auth/login", { email: user.email, password: user.password })).status).toBe(200);

    // One warning for the outage and one info line for its end, however many attempts failed in between.
    expect(storeLines().map((line) => [line.level, line.redis])).toEqual([
      [40, "unavailable"],
      [30, "connected"],
    ]);
    expect(storeLines()[0]!.msg).toMatch(/counted per instance/);
    expect(lines().filter((line) => line.level === 20 && line.msg === "Redis connection attempt failed").length).toBeGreaterThan(0);
    // Nothing outside the JSON log: ioredis prints "[ioredis] Unhandled error event" when nobody listens.
    expect(consoleError.mock.calls.filter((call) => String(call[0]).includes("ioredis"))).toEqual([]);
  }, 60_000);
});
