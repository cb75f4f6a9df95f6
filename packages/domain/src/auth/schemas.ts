import { z } from "zod";
import { envelope, messageOnly } from "../shared/envelope.js";
import { emailField, kenyanPhoneField, newPasswordField, passwordField, personNameField } from "../shared/fields.js";
import { guestTokenField } from "./guest/schemas.js";

export const registerInput = z.object({
  name: personNameField,
  email: emailField,
  password: newPasswordField,
  phone: kenyanPhoneField.optional(),
});

export const registeredUser = z.object({
  id: z.uuid(),
  name: z.string(),
  email: z.string(),
  phone: z.string().nullable(),
  email_verified: z.boolean(),
});

export const registerOutput = envelope(z.object({ user: registeredUser, access_token: z.string() }));

export const loginInput = z.object({ email: emailField, password: passwordField, guest_token: guestTokenField.optional() });

export const loginUser = z.object({ id: z.uuid(), name: z.string().nullable(), email: z.string().nullable(), role: z.string().nullable() });

export const loginOutput = envelope(
  z.discriminatedUnion("requires_otp", [
    z.object({ requires_otp: z.literal(false), access_token: z.string(), user: loginUser }),
    z.object({ requires_otp: z.literal(true), otp_token: z.string() }),
  ]),
);

export const refreshOutput = envelope(z.object({ access_token: z.string() }));

export const logoutOutput = messageOnly;
