/**
 * The built service as a real process (what `npm start` runs): data under DATA_DIR survives a restart
 * and a kill -9, a second process cannot open the same embedded database, and SIGTERM stops it cleanly.
 * Embedded project only; needs `apps/api/dist` (the test command builds it).
 */
import type { ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { target } from "./support/database.js";
import { serviceBuilt as built, startServiceProcess, type RunningService } from "./support/service-process.js";

if (!built && process.env.CI === "true" && target === "embedded") throw new Error("apps/api/dist/main.js is missing: build before testing");

function start(dataDir: string): Promise<RunningService> {
  return startServiceProcess({ PORT: "0", HOST: "127.0.0.1", DATA_DIR: dataDir, DATABASE_URL: "", NODE_ENV: "development", LOG_LEVEL: "info", MOMO_SIMULATOR: "off", MTEJA_DEV_START: "", ADMIN_API_KEY: "" });
}

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
}

async function post(url: string, path: string, body: unknown) {
  const response = await fetch(url + path, { method: "POST", headers: { "content-type": "application/json", "x-tenant-id": "default" }, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as any };
}

describe.skipIf(target !== "embedded" || !built)("the service process on the embedded database", () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), "mteja-process-"));
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("keeps committed data through kill -9 and a restart, refuses a second process, stops cleanly on SIGTERM", async () => {
    const first = await start(dataDir);
    children.push(first.child);
    const registered = await post(first.url, "/api/v1/auth/register", { name: "Durable", email: "durable@example.com", password: "password123" });
    expect(registered.status).toBe(201);

    const second = start(dataDir);
    await expect(second).rejects.toThrow(/in use by process/);

    const killed = exited(first.child);
    first.child.kill("SIGKILL");
    expect((await killed).signal).toBe("SIGKILL");

    const again = await start(dataDir);
    children.push(again.child);
    const login = await post(again.url, "/api/v1/auth/login", { email: "durable@example.com", password: "password123" });
    expect(login.status).toBe(200);
    expect(login.body.data.user.email).toBe("durable@example.com");

    const stopping = exited(again.child);
    const started = Date.now();
    again.child.kill("SIGTERM");
    const { code } = await stopping;
    expect(code).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(existsSync(path.join(dataDir, "mteja.lock"))).toBe(false);
  }, 90_000);
});
