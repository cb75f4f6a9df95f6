/**
 * Conditions of step-up shared by operations of several areas (docs/step-up.md#declaring-it). An
 * area's own conditions live beside its procedures (auth/phone/phone-step-up.ts).
 */
import { stepUpCondition } from "../../operation-meta.js";

/**
 * Changing the account's email (me/email/start): sensitive once the account has one; a guest or a
 * phone-only account adding its first email needs no fresh session.
 */
export const replacesAnEmail = stepUpCondition("the account already has an email", ({ account }) => account.email !== null);
