import { oneLineString } from "../../shared/fields.js";

/** A payment intent's id: "pi_" and 24 base64url characters (18 random bytes). */
export const intentIdField = oneLineString({ error: "intent id is required" })
  .trim()
  .regex(/^pi_[A-Za-z0-9_-]{1,64}$/, "must be a payment intent id (pi_…)")
  .meta({ examples: ["pi_Q2xhc3NpY0thbmdhTWFuZ28"] });
