import { decryptSecurityCredential, isBase64 } from "./credentials.js";
import type { ResolvedSimulationOptions } from "./options.js";

/** SecurityCredential must at least look like RSA output in base64; anything else is refused up front. */
export function isWellFormedCredential(value: unknown): value is string {
  return typeof value === "string" && value !== "" && isBase64(value);
}

/**
 * Daraja reports a wrong initiator name or password asynchronously, as ResultCode 2001. Without a
 * private key the simulator cannot read the credential, so only the name is checked.
 */
export function initiatorIsValid(
  options: ResolvedSimulationOptions,
  initiatorName: string,
  credential: string,
): boolean {
  if (initiatorName !== options.initiatorName) return false;
  if (options.privateKey === null) return true;
  return decryptSecurityCredential(options.privateKey, credential) === options.initiatorPassword;
}
