/**
 * Single-use recovery codes: 10 characters of Crockford's base32 (no I, L, O, U: nothing to misread),
 * 50 random bits each, shown once as `XXXXX-XXXXX` and stored only as a hash bound to the user.
 */
import type { Random } from "../../shared/ports.js";
import { sha256 } from "../../shared/secrets.js";

export const recoveryCodeCount = 10;
const alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const length = 10;

export function newRecoveryCodes(random: Random): string[] {
  const codes = new Set<string>();
  while (codes.size < recoveryCodeCount) {
    let code = "";
    for (let i = 0; i < length; i++) code += alphabet[random.int(alphabet.length)];
    codes.add(`${code.slice(0, 5)}-${code.slice(5)}`);
  }
  return [...codes];
}

/** Case, spaces and hyphens do not matter; I/L read as 1 and O as 0, as Crockford's decoding does. */
export function normaliseRecoveryCode(input: string): string {
  return input.toUpperCase().replace(/[\s-]/g, "").replace(/[IL]/g, "1").replace(/O/g, "0");
}

/** What a typed recovery code looks like once normalised (anything else is not one). */
export function looksLikeRecoveryCode(input: string): boolean {
  return /^[0-9A-Z]{10}$/.test(normaliseRecoveryCode(input));
}

/** With 50 random bits a fast hash suffices; the user id keeps equal codes of two users apart. */
export function hashRecoveryCode(userId: string, code: string): string {
  return sha256(`${userId}:${normaliseRecoveryCode(code)}`);
}
