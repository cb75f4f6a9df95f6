/**
 * GET /dev/outbox (and /dev/outbox/texts): the newest mails (and texts) of the outbox with their text, so a developer (or the demo app)
 * can follow verification and reset links without a mail server. The bodies hold live tokens, so it
 * is registered only outside production, and even then answers only local requests — direct loopback
 * connections naming localhost, 127.0.0.1 or [::1] as Host (http/loopback.ts; anyone else gets the 404 of
 * an unknown route): nobody on the network, nor a web page rebinding its name to 127.0.0.1, can read another person's mail.
 */
import { outboxes, type Database } from "@mteja/db";
import type { FastifyPluginAsync } from "fastify";
import { isLocalRequest } from "./loopback.js";

export interface DevOutboxOptions {
  db: Database;
}

interface DevOutboxQuery {
  to?: string;
  tenant?: string;
  limit?: string;
}

/** The filters both lists take: `to`, `tenant` and `limit` (1–200, default 50). */
function filtersOf(query: DevOutboxQuery): { to: string | undefined; tenant: string | undefined; limit: number } {
  const text = (value: unknown) => (typeof value === "string" && value ? value.trim() : undefined);
  return { to: text(query.to), tenant: text(query.tenant), limit: Math.min(Math.max(Number(query.limit) || 50, 1), 200) };
}

type Filters = ReturnType<typeof filtersOf>;

export const devOutboxRoutes: FastifyPluginAsync<DevOutboxOptions> = async (app, opts) => {
  /** One dev list: local requests only, the shared filters, never cached, `data: { <name>: rows }`. */
  const devList = (path: string, name: string, read: (filters: Filters) => Promise<unknown[]>) =>
    app.get<{ Querystring: DevOutboxQuery }>(path, async (request, reply) => {
      if (!isLocalRequest(request)) return reply.callNotFound();
      const rows = await read(filtersOf(request.query));
      void reply.header("Cache-Control", "no-store");
      return { success: true, data: { [name]: rows } };
    });
  devList("/dev/outbox", "mails", async ({ to, tenant, limit }) => {
    const rows = await outboxes.newestMails(opts.db.unscoped("dev-outbox"), { to: to?.toLowerCase(), tenantId: tenant, limit });
    return rows.map((row) => ({
      id: row.id,
      tenant_id: row.tenantId,
      kind: row.kind,
      to: row.toAddress,
      from_name: row.fromName,
      subject: row.subject,
      text: row.textBody,
      created_at: row.createdAt.toISOString(),
      sent_at: row.sentAt ? row.sentAt.toISOString() : null,
      attempts: row.attempts,
      last_error: row.lastError,
    }));
  });

  // The texts beside the mails (docs/sms.md#dev-outbox): sign-in codes without a phone.
  devList("/dev/outbox/texts", "texts", async ({ to, tenant, limit }) => {
    const rows = await outboxes.newestTexts(opts.db.unscoped("dev-outbox"), { to, tenantId: tenant, limit });
    return rows.map((row) => ({
      id: row.id,
      tenant_id: row.tenantId,
      kind: row.kind,
      to: row.toPhone,
      body: row.body,
      created_at: row.createdAt.toISOString(),
      sent_at: row.sentAt ? row.sentAt.toISOString() : null,
      attempts: row.attempts,
      last_error: row.lastError,
      send_status: row.sendStatus,
      delivery_status: row.deliveryStatus,
    }));
  });
};
