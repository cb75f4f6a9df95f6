/**
 * A local stand-in for the CAPTCHA verify APIs (docs/sign-in.md#captcha): Cloudflare Turnstile's
 * `POST /turnstile/v0/siteverify` and hCaptcha's `POST /siteverify`, in their wire format — a
 * form-encoded (or JSON) `secret`, `response`, `remoteip`, answered `{ success, "error-codes" }` —
 * each token good once, as the providers do: a reused one is refused (`timeout-or-duplicate`,
 * hCaptcha's `already-seen-response`). What a solved widget would hand the browser comes from
 * `POST /sim/tokens`; `POST /sim/hang` makes siteverify stop answering (a provider outage).
 */
import { randomBytes } from "node:crypto";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";

export interface CaptchaSimulatorOptions {
  /** The secret the service must send (CAPTCHA_SECRET). */
  secret: string;
  logger?: boolean;
}

export interface SiteverifyCall {
  provider: "turnstile" | "hcaptcha";
  response: string | undefined;
  remoteip: string | undefined;
  success: boolean;
}

export interface CaptchaSimulator {
  app: FastifyInstance;
  /** Every siteverify call, oldest first. */
  calls: SiteverifyCall[];
  /** A token as a solved widget gives it, good for one siteverify. */
  issueToken(): string;
  /** true: siteverify never answers (until false). */
  hang(on: boolean): void;
  listen(opts: { host: string; port: number }): Promise<string>;
  close(): Promise<void>;
}

const reusedCode = { turnstile: "timeout-or-duplicate", hcaptcha: "already-seen-response" } as const;
const invalidCode = { turnstile: "invalid-input-response", hcaptcha: "invalid-input-response" } as const;

export function buildCaptchaSimulator(options: CaptchaSimulatorOptions): CaptchaSimulator {
  const app = Fastify({ logger: options.logger ?? false });
  const issued = new Set<string>();
  const spent = new Set<string>();
  const calls: SiteverifyCall[] = [];
  const hanging = new Set<() => void>();
  let hangs = false;

  app.addContentTypeParser("application/x-www-form-urlencoded", { parseAs: "string" }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  const issueToken = () => {
    const token = `sim.${randomBytes(24).toString("base64url")}`;
    issued.add(token);
    return token;
  };

  const siteverify = (provider: SiteverifyCall["provider"]) => async (request: FastifyRequest, reply: FastifyReply) => {
    if (hangs) {
      // Answer only when told to stop hanging, or never: the caller's time-out decides.
      await new Promise<void>((resolve) => hanging.add(resolve));
    }
    const body = (request.body ?? {}) as Record<string, unknown>;
    const text = (name: string) => (typeof body[name] === "string" ? (body[name] as string) : undefined);
    const response = text("response");
    const remoteip = text("remoteip");
    const errors: string[] = [];
    if (text("secret") === undefined) errors.push("missing-input-secret");
    else if (text("secret") !== options.secret) errors.push("invalid-input-secret");
    if (response === undefined || response === "") errors.push("missing-input-response");
    else if (spent.has(response)) errors.push(reusedCode[provider]);
    else if (!issued.has(response)) errors.push(invalidCode[provider]);
    const success = errors.length === 0;
    if (response && issued.has(response)) {
      // Checked once, whatever the answer: the providers spend a token on its first siteverify.
      issued.delete(response);
      spent.add(response);
    }
    calls.push({ provider, response, remoteip, success });
    return reply.send(success ? { success: true, "error-codes": [], challenge_ts: new Date().toISOString(), hostname: "localhost" } : { success: false, "error-codes": errors });
  };

  app.post("/turnstile/v0/siteverify", siteverify("turnstile"));
  app.post("/siteverify", siteverify("hcaptcha"));
  app.post("/sim/tokens", async () => ({ token: issueToken() }));
  app.post("/sim/hang", async (request) => {
    const on = (request.body as { on?: unknown } | null)?.on !== false;
    setHang(on);
    return { hang: on };
  });

  function setHang(on: boolean): void {
    hangs = on;
    if (!on) {
      for (const resolve of hanging) resolve();
      hanging.clear();
    }
  }

  return {
    app,
    calls,
    issueToken,
    hang: setHang,
    async listen({ host, port }) {
      const address = await app.listen({ host, port });
      return address.replace("[::1]", "127.0.0.1");
    },
    async close() {
      setHang(false);
      await app.close();
    },
  };
}
