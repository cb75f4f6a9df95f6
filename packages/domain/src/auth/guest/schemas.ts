import { z } from "zod";
import { envelope } from "../../shared/envelope.js";
import { emailField, newPasswordField, oneLineString, personNameField } from "../../shared/fields.js";

export const guestInput = z.object({}).strict();

export const guestUser = z.object({
  id: z.uuid(),
  name: z.string().nullable(),
  email: z.string().nullable(),
  role: z.string().nullable(),
  is_guest: z.boolean(),
});

export const guestOutput = envelope(z.object({ access_token: z.string(), user: guestUser }));

export const guestUpgradeInput = z.object({
  name: personNameField.optional(),
  email: emailField.describe("Attached once verified through the link mailed to it (409 EMAIL_IN_USE at verify if another account has it)"),
  password: newPasswordField,
});

export const guestUpgradeOutput = envelope(
  z.object({ access_token: z.string().describe('A new access token with role "customer", for the same session'), user: guestUser }),
);

/**
 * A guest's access token in a sign-in's body: the guest's addresses, payments and intents move to the
 * account signed in to, and the guest is deleted, once the sign-in completes (docs/sign-in.md).
 */
export const guestTokenField = oneLineString()
  .max(4096, "guest_token is too long")
  .describe("A guest's access token: its addresses, payments and intents move to this account once the sign-in completes");
