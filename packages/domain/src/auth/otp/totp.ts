/**
 * TOTP per RFC 6238 as docs/two-factor.md fixes it: 160-bit secret (32 base32 characters), SHA-1, 6 digits,
 * 30-second steps, one step of clock drift accepted either way. On otplib 13.
 */
import { generateURI, ScureBase32Plugin, verify } from "otplib";
import type { Random } from "../../shared/ports.js";

export const totpPeriodSeconds = 30;
const secretBytes = 20;
/** One step either way, expressed as otplib's tolerance in seconds. */
const toleranceSeconds = totpPeriodSeconds;
const base32 = new ScureBase32Plugin();

/** The secret's bytes come from the Random port; otplib's base32 (RFC 4648, no padding: 20 bytes are 32 characters). */
export function newTotpSecret(random: Random): string {
  return base32.encode(random.bytes(secretBytes));
}

/** The time step a moment falls in. */
export function timeStepAt(now: Date): number {
  return Math.floor(now.getTime() / 1000 / totpPeriodSeconds);
}

/**
 * The time step a code belongs to, when it is right for the secret at `now` (±1 step) and newer than
 * `lastStep` (the highest step ever accepted for this user); otherwise undefined. Claiming the step
 * so it is never accepted again is the caller's (an atomic compare-and-set on the user row).
 */
export async function matchTotp(secret: string, code: string, now: Date, lastStep: bigint | null): Promise<number | undefined> {
  const epoch = Math.floor(now.getTime() / 1000);
  const newestStep = timeStepAt(now) + 1;
  if (lastStep !== null && lastStep >= BigInt(newestStep)) return undefined;
  const result = await verify({
    secret,
    token: code,
    epoch,
    epochTolerance: toleranceSeconds,
    // Skips the steps already used, so a code of an older step cannot shadow a fresh one.
    ...(lastStep !== null && lastStep >= 0n ? { afterTimeStep: Number(lastStep) } : {}),
  });
  return result.valid ? timeStepAt(now) + result.delta : undefined;
}

/**
 * The otpauth:// URI authenticator apps scan (Google's Key Uri Format): label `issuer:email`, each part
 * percent-encoded, issuer repeated as a parameter. Algorithm, digits and period are the defaults
 * (SHA1, 6, 30) and therefore left out, as in the documented form (docs/two-factor.md).
 */
export function totpUri(issuer: string, email: string, secret: string): string {
  return generateURI({ issuer: labelSafe(issuer), label: labelSafe(email), secret });
}

/** A colon separates issuer from account in the label; one inside either part would move the split. */
function labelSafe(value: string): string {
  return value.replace(/:/g, " ").replace(/\s+/g, " ").trim() || "Mteja";
}
