import { createTRPCClient, httpLink } from "@trpc/client";
import type { AppRouter, Deps, Random } from "@mteja/domain";
import { randomBytes } from "node:crypto";
import type { FastifyInstance } from "fastify";
import type { Writable } from "node:stream";
import pino from "pino";
import { buildServer, createMetrics, createServices, createShutdown, loggerOptions, readSettings, type Metrics, type Services } from "@mteja/api";
import { createTestDatabase, type TestDatabase } from "./database.js";

export const adminKey = "test-admin-key-0123456789";

export interface TestApp {
  url: string;
  app: FastifyInstance;
  deps: Deps;
  database: TestDatabase;
  /** The pruning job of this instance (run by hand: its timer only runs with PRUNE_INTERVAL_SECONDS set). */
  retention: Services["retention"];
  close(): Promise<void>;
}

const silent = { info() {}, warn() {}, error() {}, debug() {} };

/**
 * Starts the real service (settings → services → Fastify on 127.0.0.1:0) on a fresh database, or on
 * another instance's database (`options.database`: a second instance, which leaves the database to its owner).
 */
export interface TestAppOptions {
  now?: () => Date;
  /** Chance the test controls (tokens, ids); the service uses node:crypto otherwise. */
  random?: Random;
  database?: TestDatabase;
  /** Log JSON lines to this stream (with the settings' LOG_LEVEL) instead of not logging at all. */
  logStream?: Writable;
  /** A metrics registry wired as main.ts wires it: Daraja calls report into it, /metrics serves it. */
  metrics?: Metrics;
  /** Listen address (default 127.0.0.1); `url` stays the loopback one. */
  host?: string;
}

export async function startTestApp(env: Record<string, string> = {}, options: TestAppOptions = {}): Promise<TestApp> {
  const given = {
    NODE_ENV: "test",
    LOG_LEVEL: "silent",
    DATA_ENCRYPTION_KEY: randomBytes(32).toString("hex"),
    ADMIN_API_KEY: adminKey,
    DATA_DIR: "/nonexistent-test-data-dir",
    // Tests prune by hand (retention.runOnce), at the clock's time of their choosing.
    PRUNE_INTERVAL_SECONDS: "0",
    // Hundreds of services start in one run: hashing in-process keeps each light. The default (hashing
    // processes) is what password-hashing.test.ts and the process tests start.
    PASSWORD_HASHER: "threads",
    // A production start checks new passwords against Pwned Passwords by default; no test leaves the
    // machine, so the check is off unless a test turns it on against its stand-in (breached-passwords.test.ts).
    PASSWORD_BREACH_CHECK: "off",
    ...env,
  };
  // The test opens the database itself, from the settings the composition root would read.
  const base = readSettings(given);
  const database =
    options.database ??
    (await createTestDatabase({
      preparedStatements: base.DATABASE_PREPARED_STATEMENTS,
      connectTimeoutMs: base.DATABASE_CONNECT_TIMEOUT_MS,
      statementTimeoutMs: base.DATABASE_STATEMENT_TIMEOUT_MS,
    }));
  // Its URL is the service's DATABASE_URL, as in production (the listening connection goes there).
  const settings = readSettings(database.url ? { DATABASE_URL: database.url, ...given } : given);
  const ownsDatabase = !options.database;
  const logger = options.logStream ? pino(loggerOptions(settings) as pino.LoggerOptions, options.logStream) : undefined;
  // The registry /metrics serves is also where the domain reports sign-ins, as main.ts wires it.
  const metrics = options.metrics ?? createMetrics();
  const services = await createServices(settings, logger ?? silent, {
    db: database.db,
    events: metrics,
    ...(options.now ? { now: options.now } : {}),
    ...(options.random ? { random: options.random } : {}),
    ...(options.metrics ? { darajaFetch: options.metrics.instrumentDarajaFetch() } : {}),
  });
  const app = await buildServer({
    settings,
    deps: services.deps,
    ...(logger ? { loggerInstance: logger } : { logger: false }),
    metrics,
    rateLimitStore: services.rateLimitStore,
    statusListener: services.statusListener,
  });
  await app.listen({ port: 0, host: options.host ?? "127.0.0.1" });
  // Created at once, as main.ts does: it must see every request to close their connections at the end.
  const shutdown = createShutdown({ app, stopServices: () => services.close(), stopping: () => services.stopping(), logger: silent, timeoutMs: 8_000 });
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    app,
    deps: services.deps,
    database,
    retention: services.retention,
    // Closed as SIGTERM closes the service (runtime/shutdown.ts), with a deadline: a part that does not
    // stop fails the test's hook with its name instead of hanging it.
    close: async () => {
      try {
        await shutdown("test finished");
      } finally {
        if (ownsDatabase) await database.drop();
      }
    },
  };
}

export interface HttpResult<T = any> {
  status: number;
  body: T;
  headers: Headers;
  cookies: Record<string, { value: string; attributes: string }>;
}

/** A small REST client that keeps the refresh cookie like a browser would. */
export class RestClient {
  cookie: string | undefined;
  constructor(
    readonly baseUrl: string,
    public tenantId: string | undefined = "default",
  ) {}

  async request<T = any>(
    method: string,
    path: string,
    options: { body?: unknown; token?: string; headers?: Record<string, string>; rawBody?: string } = {},
  ): Promise<HttpResult<T>> {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (this.tenantId) headers["x-tenant-id"] ??= this.tenantId;
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (this.cookie) headers.cookie = `refresh_token=${this.cookie}`;
    let body: string | undefined = options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers["content-type"] ??= "application/json";
    }
    const response = await fetch(this.baseUrl + path, { method, headers, body });
    const text = await response.text();
    const cookies: HttpResult["cookies"] = {};
    for (const line of response.headers.getSetCookie()) {
      const [pair = "", ...rest] = line.split(";");
      const [name = "", value = ""] = pair.split("=");
      cookies[name.trim()] = { value, attributes: rest.join(";").trim() };
    }
    const refresh = cookies.refresh_token;
    if (refresh) this.cookie = refresh.value || undefined;
    return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers, cookies };
  }

  post<T = any>(path: string, body?: unknown, token?: string) {
    return this.request<T>("POST", path, { body, ...(token ? { token } : {}) });
  }
  get<T = any>(path: string, token?: string) {
    return this.request<T>("GET", path, token ? { token } : {});
  }
  put<T = any>(path: string, body: unknown, token?: string) {
    return this.request<T>("PUT", path, { body, ...(token ? { token } : {}) });
  }
}

export function trpcClient(baseUrl: string, headers: () => Record<string, string>) {
  return createTRPCClient<AppRouter>({ links: [httpLink({ url: `${baseUrl}/trpc`, headers })] });
}

let counter = 0;
export function uniqueEmail(prefix = "user"): string {
  counter += 1;
  return `${prefix}-${Date.now().toString(36)}-${counter}@example.com`;
}

export async function registerUser(client: RestClient, overrides: Partial<{ name: string; email: string; password: string; phone: string }> = {}) {
  const input = { name: "Wanjiku Kamau", email: uniqueEmail(), password: "correct horse battery", ...overrides };
  const result = await client.post("/api/v1/auth/register", input);
  if (result.status !== 201) throw new Error(`register failed: ${result.status} ${JSON.stringify(result.body)}`);
  return { ...input, id: result.body.data.user.id as string, accessToken: result.body.data.access_token as string };
}
