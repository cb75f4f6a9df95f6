import { z } from "zod";
import { envelope, messageOnly } from "../../shared/envelope.js";
import { emailField } from "../../shared/fields.js";
import { emailedToken } from "../recovery/schemas.js";

export const emailStartInput = z.object({ email: emailField.describe("The new address: the link to confirm it is mailed there") });
export const emailStartOutput = messageOnly;

export const emailVerifyInput = z.object({ token: emailedToken });
export const emailVerifyOutput = envelope(z.object({ email: z.string(), email_verified: z.literal(true) }));
