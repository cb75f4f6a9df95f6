/** What the /sim control routes read: a JSON body against its schema, and phone numbers in any usual form. */
import type { FastifyReply, FastifyRequest } from "fastify";
import { normalisePhone } from "@mteja/simulated-daraja";
import { z } from "zod";

/** A Kenyan mobile number (07…, 254…, +254…), as 2547XXXXXXXX. */
export const kenyanPhone = z
  .string()
  .transform(
    (phone, context) =>
      normalisePhone(phone) ?? (context.addIssue({ code: "custom", message: "not a Kenyan mobile number" }), z.NEVER),
  );

/** The body (none: `{}`) read against `schema`; null once a 400 is sent for a body that is not JSON or does not fit. */
export function controlBody<Schema extends z.ZodType>(
  request: FastifyRequest,
  reply: FastifyReply,
  schema: Schema,
): z.output<Schema> | null {
  let json: unknown = {};
  try {
    json = typeof request.body === "string" && request.body.trim() !== "" ? (JSON.parse(request.body) as unknown) : {};
  } catch {
    void reply.code(400).send({ error: "body is not JSON" });
    return null;
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return parsed.data;
  void reply.code(400).send({ error: z.prettifyError(parsed.error) });
  return null;
}
