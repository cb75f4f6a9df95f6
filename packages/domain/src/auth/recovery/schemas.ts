import { z } from "zod";
import { messageOnly } from "../../shared/envelope.js";
import { emailField, newPasswordField, oneLineString } from "../../shared/fields.js";

/** The token of an emailed link. Its shape is checked with the token itself: a malformed one is INVALID_TOKEN. */
export const emailedToken = oneLineString({ error: "token is required" })
  .trim()
  .toLowerCase()
  .min(1, "token is required")
  .max(256, "token is too long")
  .describe("The token from the emailed link (64 hex characters)");

export const forgotPasswordInput = z.object({ email: emailField });

export const resetPasswordInput = z.object({
  token: emailedToken,
  email: emailField,
  new_password: newPasswordField.describe("The new password (at least 8 characters)"),
});

export const verifyEmailInput = z.object({ token: emailedToken, email: emailField });

export const recoveryOutput = messageOnly;
