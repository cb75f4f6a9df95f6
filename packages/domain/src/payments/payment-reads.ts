/**
 * Reading payments (beyond the spec): GET /api/momo/payments and /api/momo/payments/{checkoutRequestId}.
 * A customer sees their own payments; an admin sees every payment of the tenant.
 */
import type { Prisma } from "@mteja/db";
import { DomainError } from "../errors.js";
import { isAdmin, type MomoCtx } from "./momo-context.js";
import { paymentView } from "./payment-records.js";
import type { ListPaymentsInput, PaymentView } from "./schemas.js";
import { findVisiblePayment } from "./stk-query.js";

interface Cursor {
  createdAt: Date;
  id: string;
}

function encodeCursor(cursor: Cursor): string {
  return Buffer.from(`${cursor.createdAt.toISOString()}|${cursor.id}`).toString("base64url");
}

function decodeCursor(text: string): Cursor {
  const [iso = "", id = ""] = Buffer.from(text, "base64url").toString("utf8").split("|");
  const createdAt = new Date(iso);
  if (Number.isNaN(createdAt.getTime()) || !/^[0-9a-f-]{36}$/i.test(id)) {
    throw new DomainError("VALIDATION_ERROR", "The request is invalid.", { details: [{ path: "cursor", message: "cursor is not a nextCursor of this list" }] });
  }
  return { createdAt, id };
}

/** Newest first, keyset-paginated on (created_at, id). */
export async function listPayments(ctx: MomoCtx, input: ListPaymentsInput): Promise<{ payments: PaymentView[]; nextCursor: string | null }> {
  const where: Prisma.PaymentWhereInput = { tenantId: ctx.tenant.id, ...(isAdmin(ctx) ? {} : { userId: ctx.auth.sub }) };
  if (input.status) where.status = input.status;
  if (input.from || input.to) where.createdAt = { ...(input.from ? { gte: input.from } : {}), ...(input.to ? { lt: input.to } : {}) };
  const conditions: Prisma.PaymentWhereInput[] = [where];
  if (input.cursor) {
    const cursor = decodeCursor(input.cursor);
    conditions.push({ OR: [{ createdAt: { lt: cursor.createdAt } }, { createdAt: cursor.createdAt, id: { lt: cursor.id } }] });
  }
  const rows = await ctx.deps.db.prisma.payment.findMany({
    where: { AND: conditions },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: input.limit + 1,
  });
  const page = rows.slice(0, input.limit);
  const last = page[page.length - 1];
  return { payments: page.map(paymentView), nextCursor: rows.length > input.limit && last ? encodeCursor(last) : null };
}

export async function getPayment(ctx: MomoCtx, checkoutRequestId: string): Promise<{ payment: PaymentView }> {
  return { payment: paymentView(await findVisiblePayment(ctx, checkoutRequestId)) };
}
