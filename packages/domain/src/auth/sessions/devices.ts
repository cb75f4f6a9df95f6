/**
 * The devices page (docs/sessions.md#devices): the user's live sessions, and ending one or all
 * others. A revoked session's access tokens fail on their next request (assertLiveSession reads the
 * session on every request) and its refresh cookie is refused.
 */
import type { TenantTx } from "@mteja/db";
import { DomainError } from "../../shared/errors.js";
import { readKeysetPage } from "../../shared/keyset-page.js";
import { recordSecurityEvent } from "../../security-events/record.js";
import type { AuthedCtx } from "../ports.js";
import type { PageRequest } from "../../security-events/reads.js";

export interface DeviceView {
  id: string;
  created_at: string;
  last_used_at: string | null;
  ip: string | null;
  user_agent: string | null;
  current: boolean;
}

interface SessionRow {
  id: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  ip: string | null;
  userAgent: string | null;
}

function liveSessionsOf(ctx: AuthedCtx) {
  const now = ctx.deps.clock.now();
  return { userId: ctx.auth.sub, revokedAt: null, idleExpiresAt: { gt: now }, absoluteExpiresAt: { gt: now } };
}

function toDeviceView(ctx: AuthedCtx, row: SessionRow): DeviceView {
  return {
    id: row.id,
    created_at: row.createdAt.toISOString(),
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
    ip: row.ip,
    user_agent: row.userAgent,
    current: row.id === ctx.auth.sid,
  };
}

export async function listDevices(ctx: AuthedCtx, page: PageRequest) {
  const { rows, nextCursor } = await readKeysetPage(page, ({ conditions, orderBy, take }) =>
    ctx.db.session.findMany({
      where: { AND: [liveSessionsOf(ctx), ...conditions] },
      select: { id: true, createdAt: true, lastUsedAt: true, ip: true, userAgent: true },
      orderBy: [...orderBy],
      take,
    }),
  );
  return { sessions: rows.map((row) => toDeviceView(ctx, row)), next_cursor: nextCursor };
}

/** Ends one of the user's sessions (the current one included: that is signing out here). Another user's id is 404. */
export async function revokeDevice(ctx: AuthedCtx, sessionId: string): Promise<void> {
  await ctx.db.$transaction(async (tx) => {
    const revoked = await revokeLive(ctx, tx, { id: sessionId });
    if (revoked.length === 0) throw new DomainError("NOT_FOUND", "not_found.session");
  });
}

/** Ends every session of the user but the one making the request. */
export async function revokeOtherDevices(ctx: AuthedCtx): Promise<{ revoked: number }> {
  const revoked = await ctx.db.$transaction((tx) => revokeLive(ctx, tx, { id: { not: ctx.auth.sid } }));
  return { revoked: revoked.length };
}

async function revokeLive(ctx: AuthedCtx, tx: TenantTx, which: { id: string | { not: string } }): Promise<string[]> {
  const sessions = await tx.session.findMany({ where: { ...liveSessionsOf(ctx), ...which }, select: { id: true } });
  if (sessions.length === 0) return [];
  const ids = sessions.map((session) => session.id);
  await tx.session.updateMany({ where: { id: { in: ids }, revokedAt: null }, data: { revokedAt: ctx.deps.clock.now(), revokedReason: "revoked_by_user" } });
  for (const id of ids) {
    await recordSecurityEvent(ctx, tx, ctx.tenant.id, { userId: ctx.auth.sub, type: "session.revoked", details: { session_id: id, current: id === ctx.auth.sid } });
  }
  return ids;
}
