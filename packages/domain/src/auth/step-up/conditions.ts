/**
 * Conditions of step-up shared by operations of several areas (docs/step-up.md#declaring-it). An
 * area's own conditions live beside its procedures (auth/phone/phone-step-up.ts).
 */
import { stepUpCondition } from "../../shared/operation-meta.js";

/**
 * Starting an email change (me/email/start): sensitive once the account has an email or a password. A
 * guest or a phone-only account (its verified phone its only way in) adding its first email needs no
 * fresh session; an account with a password is not phone-only, and an email it gains could reset that
 * password (docs/step-up.md#which-operations).
 */
export const changesEmailOrAddsOneBesideAPassword = stepUpCondition(
  "the account already has an email or a password",
  ({ account }) => account.email !== null || account.hasPassword,
);
