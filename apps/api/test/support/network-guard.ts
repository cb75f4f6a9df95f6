/**
 * No test reaches an outside service (Pwned Passwords, a CAPTCHA provider, Google, Daraja, Africa's
 * Talking): every socket connection of the test process to an address off loopback is refused before
 * any packet (or DNS query) leaves, and the test that made it fails (file-defaults.ts checks after each
 * test). Let through: this machine's own addresses (a test that reaches the service "from the network"
 * connects to its own interface, and nothing leaves the machine) and the test databases named by
 * MTEJA_TEST_PG_URL and MTEJA_TEST_REDIS_URL.
 * Installed once per worker by file-defaults.ts; it wraps `net.Socket.prototype.connect`, which every
 * client (fetch, http, tls, pg, ioredis) connects through.
 */
import net from "node:net";
import { networkInterfaces } from "node:os";

const guardMark = Symbol.for("mteja.networkGuard");

interface GuardState {
  attempts: string[];
}

function hostsOfTestServices(): string[] {
  return [process.env.MTEJA_TEST_PG_URL, process.env.MTEJA_TEST_REDIS_URL].flatMap((url) => {
    if (!url) return [];
    try {
      return [new URL(url).hostname.replace(/^\[|\]$/g, "")];
    } catch {
      return [];
    }
  });
}

/** A host a test may connect to: loopback, or one of the test's own databases. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
  if (bare === "localhost" || bare === "::1" || bare === "0:0:0:0:0:0:0:1") return true;
  const v4 = bare.replace(/^::ffff:/, "");
  return net.isIPv4(v4) && v4.startsWith("127.");
}

function state(): GuardState {
  const holder = globalThis as { [guardMark]?: GuardState };
  holder[guardMark] ??= { attempts: [] };
  return holder[guardMark];
}

/** Where a `connect` call goes: "host:port", or undefined for a local (Unix) socket. */
function targetOf(args: unknown[]): string | undefined {
  const first = Array.isArray(args[0]) ? args[0][0] : args[0];
  if (typeof first === "object" && first !== null) {
    const options = first as { host?: string; port?: number | string; path?: string };
    if (options.path) return undefined;
    return `${options.host ?? "localhost"}:${options.port ?? ""}`;
  }
  if (typeof first === "number" || (typeof first === "string" && /^\d+$/.test(first))) {
    return `${typeof args[1] === "string" ? args[1] : "localhost"}:${first}`;
  }
  return undefined;
}

/** An address of one of this machine's interfaces: a connection to it never leaves the machine. */
function isOwnAddress(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase().replace(/^::ffff:/, "");
  return Object.values(networkInterfaces()).some((entries) => entries?.some((entry) => entry.address.toLowerCase() === bare));
}

export function installNetworkGuard(): void {
  const proto = net.Socket.prototype as unknown as { connect: (...args: unknown[]) => unknown; [guardMark]?: true };
  if (proto[guardMark]) return;
  const allowed = new Set(hostsOfTestServices());
  const original = proto.connect;
  proto.connect = function guardedConnect(this: net.Socket, ...args: unknown[]) {
    const target = targetOf(args);
    const host = target?.slice(0, target.lastIndexOf(":"));
    if (host !== undefined && !isLoopbackHost(host) && !allowed.has(host) && !isOwnAddress(host)) {
      state().attempts.push(target!);
      const error = Object.assign(new Error(`test network guard: connection to ${target} refused (off loopback)`), { code: "ECONNREFUSED" });
      process.nextTick(() => this.destroy(error));
      return this;
    }
    return original.apply(this, args);
  };
  proto[guardMark] = true;
}

/** The connections refused since the last call (and forgets them). */
export function takeOffLoopbackAttempts(): string[] {
  return state().attempts.splice(0);
}
