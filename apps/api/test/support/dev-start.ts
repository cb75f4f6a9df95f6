/**
 * The dev start (`npm start` sets MTEJA_DEV_START=1) as main.ts runs it, in the test process: settings
 * read from an env, the services with their in-process stand-ins, the server on a free port, on a test
 * database of its own and a data directory of its own. `close()` undoes it all, the server first.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { FastifyInstance } from "fastify";
import { buildServer } from "../../src/server.js";
import { createServices, type Services } from "../../src/runtime/services.js";
import { readSettings } from "../../src/settings.js";
import { createTestDatabase, type TestDatabase } from "./database.js";
import { freePort } from "./ports.js";

const silent = { info() {}, warn() {}, error() {}, debug() {} };

export interface DevService {
  /** `http://127.0.0.1:<port>`, the service's address. */
  url: string;
  services: Services;
  /** The DATA_DIR the start was given (a temporary directory, removed by close). */
  dataDir: string;
  close(): Promise<void>;
}

/**
 * Starts the dev start with `env` on top of what every dev start here needs (development, silent, the
 * reconcile sweep off). `env` may be a function of the service's own address (PUBLIC_URL, APP_URL).
 */
export type DevEnv = Record<string, string> | ((url: string) => Record<string, string>);

export async function startDevService(env: DevEnv): Promise<DevService> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const dataDir = mkdtempSync(path.join(tmpdir(), "mteja-dev-start-"));
  let database: TestDatabase | undefined;
  let services: Services | undefined;
  let app: FastifyInstance | undefined;
  const close = async () => {
    await app?.close();
    await services?.close();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    database = await createTestDatabase();
    const settings = readSettings({
      NODE_ENV: "development",
      LOG_LEVEL: "silent",
      MTEJA_DEV_START: "1",
      PORT: String(port),
      DATA_DIR: dataDir,
      DATA_ENCRYPTION_KEY: "0".repeat(64),
      MOMO_RECONCILE_INTERVAL_MS: "0",
      ...(typeof env === "function" ? env(url) : env),
    });
    services = await createServices(settings, silent, { db: database.db });
    // As main.ts builds it: the demo shop's CAPTCHA widget uses the stand-in when one runs.
    const captchaToken = services.captcha.dev?.issueToken;
    app = await buildServer({ settings, deps: services.deps, logger: false, captchaToken });
    await app.listen({ host: "127.0.0.1", port });
    return { url, services, dataDir, close };
  } catch (error) {
    await close();
    throw error;
  }
}
