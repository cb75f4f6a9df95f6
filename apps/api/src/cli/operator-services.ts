/**
 * What the operator's commands run on: the service's own settings and services (workers not started),
 * and the admin API's procedures called in process. The command holds the database, so it is the
 * admin: it presents a key made for this process only, whether or not ADMIN_API_KEY is set.
 */
import { randomBytes } from "node:crypto";
import { appRouter, createCallerFactory, type Context, type Logger, type RequestInfo } from "@mteja/domain";
import { createServices, type Services } from "../runtime/services.js";
import type { Settings } from "../settings.js";

const createCaller = createCallerFactory(appRouter);
export type AdminCaller = ReturnType<typeof createCaller>;

export interface OperatorServices {
  services: Services;
  admin: AdminCaller;
  close(): Promise<void>;
}

/** Only warnings and errors, to stderr: stdout carries the command's answer. */
export const stderrLogger: Logger = {
  info() {},
  debug() {},
  warn: (obj, msg) => console.error(JSON.stringify({ level: "warn", msg, ...obj })),
  error: (obj, msg) => console.error(JSON.stringify({ level: "error", msg, ...obj })),
};

export async function openOperatorServices(settings: Settings): Promise<OperatorServices> {
  const services = await createServices(settings, stderrLogger, { startWorkers: false });
  const key = randomBytes(32).toString("base64url");
  const deps = { ...services.deps, config: { ...services.deps.config, adminApiKey: key, adminApiKeyLoopbackOnly: false } };
  const context: Context = { deps, request: operatorRequest(key) };
  return { services, admin: createCaller(context), close: () => services.close() };
}

function operatorRequest(adminKey: string): RequestInfo {
  let accepted = false;
  return {
    tenantHeader: undefined,
    authorization: `Bearer ${adminKey}`,
    idempotencyKey: undefined,
    ip: "127.0.0.1",
    localRequest: true,
    userAgent: "mteja-cli",
    getCookie: () => undefined,
    setCookie() {},
    clearCookie() {},
    setHeader() {},
    markAccepted: () => void (accepted = true),
    isAccepted: () => accepted,
  };
}
