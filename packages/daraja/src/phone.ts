const KENYAN_MOBILE = /^(?:\+?254|0)([17]\d{8})$/;

/**
 * Normalises a Kenyan mobile number to the 12-digit `2547XXXXXXXX` / `2541XXXXXXXX` form Daraja takes.
 * Returns null for anything else (landlines, foreign numbers, wrong length).
 */
export function normaliseKenyanPhone(input: string): string | null {
  const compact = input.trim().replace(/[\s-]/g, "");
  const match = KENYAN_MOBILE.exec(compact);
  return match ? `254${match[1]}` : null;
}

/** The MSISDN shape Daraja itself validates (`PhoneNumber`, `PartyA`, B2C `PartyB`). */
export const DARAJA_MSISDN_PATTERN = /^254[17]\d{8}$/;
