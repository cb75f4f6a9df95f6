/**
 * The check made when an endpoint is added (an endpoint's URL never changes afterwards; the sender
 * checks every resolved address again at connection time, so a name that changes its answer later is
 * still refused).
 */
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { createAddressGuard } from "./address-guard.js";

export interface EndpointUrlRules {
  /** Production without WEBHOOK_ALLOW_PRIVATE_URLS: https only, public addresses only. */
  publicHttpsOnly: boolean;
  /** The name resolver (tests pass their own). */
  resolve?: (hostname: string) => Promise<string[]>;
}

async function resolveAll(hostname: string): Promise<string[]> {
  return (await lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);
}

/** Why a delivery must not go to this URL, or null when it may. */
export async function endpointUrlProblem(url: string, rules: EndpointUrlRules): Promise<string | null> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "url must be an http or https URL";
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return "url must be an http or https URL";
  if (!rules.publicHttpsOnly) return null;
  if (parsed.protocol !== "https:") return "url must be https";
  const host = parsed.hostname.replace(/^\[|\]$/g, "");
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : await (rules.resolve ?? resolveAll)(host);
  } catch {
    return "url's host name does not resolve";
  }
  if (addresses.length === 0) return "url's host name does not resolve";
  const guard = createAddressGuard({ allowPrivate: false });
  for (const address of addresses) {
    // The rule, never the address: what an internal name resolves to is not the shop's to learn.
    const rule = guard.refusal(address);
    if (rule) return `url resolves to a non-public address (rule: ${rule})`;
  }
  return null;
}
