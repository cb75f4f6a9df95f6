/** Inputs and outputs of the payment intent operations (docs/payment-intents.md); a payment as the server API shows it is the shared folder's (serverPaymentView). */
import { STK_AMOUNT_MAX, STK_AMOUNT_MIN, STK_TRANSACTION_DESC_MAX_LENGTH } from "@mteja/daraja";
import { z } from "zod";
import { envelope } from "../shared/envelope.js";
import { oneLineString, uncoerced } from "../shared/fields.js";
import { serverPaymentView, wholeShillings } from "../payments/shared/schemas.js";
import { intentIdField } from "../payments/shared/intent-id.js";
import { intentStatuses } from "./intent-transitions.js";

export const REFERENCE_PATTERN = /^[A-Za-z0-9]{1,12}$/;
export const METADATA_MAX_KEYS = 20;
export const METADATA_KEY_MAX_LENGTH = 40;
export const METADATA_VALUE_MAX_LENGTH = 500;
export const EXPIRES_IN_MIN_SECONDS = 60;
export const EXPIRES_IN_MAX_SECONDS = 604_800;
export const EXPIRES_IN_DEFAULT_SECONDS = 86_400;


const metadataField = z
  .record(
    oneLineString().max(METADATA_KEY_MAX_LENGTH, `metadata keys must be at most ${METADATA_KEY_MAX_LENGTH} characters`),
    oneLineString({ error: "metadata values must be strings" }).max(METADATA_VALUE_MAX_LENGTH, `metadata values must be at most ${METADATA_VALUE_MAX_LENGTH} characters`),
    { error: "metadata must be an object of strings" },
  )
  .refine((value) => Object.keys(value).length <= METADATA_MAX_KEYS, `metadata must have at most ${METADATA_MAX_KEYS} keys`);

export const createIntentInput = z.object({
  amount: wholeShillings(STK_AMOUNT_MIN, STK_AMOUNT_MAX).describe("Whole shillings the customer pays."),
  reference: oneLineString({ error: "reference is required" })
    .trim()
    .regex(REFERENCE_PATTERN, "reference must be 1-12 letters or digits")
    .describe("The shop's order number (1-12 letters or digits): Daraja's AccountReference. Unique among the shop's open intents, case-insensitively."),
  description: oneLineString({ error: "description must be a string" })
    .trim()
    .max(STK_TRANSACTION_DESC_MAX_LENGTH, `description must be at most ${STK_TRANSACTION_DESC_MAX_LENGTH} characters`)
    .transform((value) => value || undefined)
    .optional()
    .describe(`Daraja's TransactionDesc; at most ${STK_TRANSACTION_DESC_MAX_LENGTH} characters (default: "Payment").`),
  user_id: z.uuid("user_id must be a user id of this shop").optional().describe("Binds the intent to one customer: only that customer can pay it."),
  metadata: metadataField.optional().describe(`The shop's own data, returned as given: at most ${METADATA_MAX_KEYS} string values of at most ${METADATA_VALUE_MAX_LENGTH} characters.`),
  expires_in_seconds: uncoerced(
    z
      .number({ error: "expires_in_seconds must be a whole number of seconds" })
      .int("expires_in_seconds must be a whole number of seconds")
      .min(EXPIRES_IN_MIN_SECONDS, `expires_in_seconds must be at least ${EXPIRES_IN_MIN_SECONDS}`)
      .max(EXPIRES_IN_MAX_SECONDS, `expires_in_seconds must be at most ${EXPIRES_IN_MAX_SECONDS}`),
  )
    .optional()
    .describe(`Seconds until the intent expires unless paid (${EXPIRES_IN_MIN_SECONDS}-${EXPIRES_IN_MAX_SECONDS}, default ${EXPIRES_IN_DEFAULT_SECONDS}).`),
});
export type CreateIntentInput = z.infer<typeof createIntentInput>;

export const intentIdInput = z.object({ id: intentIdField });

/** `limit` is left coercible: it arrives as a query string. */
export const listIntentsInput = z
  .object({
    status: z.enum(intentStatuses).optional(),
    limit: z.number().int().min(1).max(100).default(20),
    cursor: oneLineString().trim().max(80).optional().describe("next_cursor of the previous page."),
  })
  .default({ limit: 20 });
export type ListIntentsInput = z.infer<typeof listIntentsInput>;

export const paymentIdInput = z.object({ id: z.uuid("id must be a payment id") });


export const intentView = z.object({
  id: z.string(),
  livemode: z.boolean().describe("false for test mode's simulated money (a test key's object), true for live money (docs/test-mode.md)."),
  amount: z.number(),
  reference: z.string(),
  description: z.string().nullable(),
  user_id: z.string().nullable(),
  metadata: z.record(z.string(), z.string()),
  status: z.enum(intentStatuses),
  created_at: z.string(),
  expires_at: z.string(),
  updated_at: z.string(),
  payments: z.array(serverPaymentView).describe("Every payment (prompt) made for this intent, oldest first."),
});
export type IntentView = z.infer<typeof intentView>;

export const intentOutput = envelope(intentView);
export const listIntentsOutput = envelope(z.object({ payment_intents: z.array(intentView), next_cursor: z.string().nullable() }));
export const serverPaymentOutput = envelope(serverPaymentView);
