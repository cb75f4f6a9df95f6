/**
 * The devices page (docs/sessions.md#devices): the user's live sessions, and ending one or all
 * others. A revoked session's access tokens fail on their next request (assertLiveSession reads the
 * session on every request) and its refresh cookie is refused.
 */
import { sessions, type TenantTx } from "@mteja/db";
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

/** The sessions the page shows and ends: the user's, not revoked, within both their idle and absolute lifetimes. */
function liveSessionsOf(ctx: AuthedCtx, which: { only?: string; except?: string } = {}): sessions.UserSessionCondition {
  const now = ctx.deps.clock.now();
  return { userId: ctx.auth.sub, revoked: false, idleExpiresAfter: now, absoluteExpiresAfter: now, ...which };
}

function toDeviceView(ctx: AuthedCtx, row: sessions.DeviceRow): DeviceView {
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
    sessions.pageOfUser(ctx.db, liveSessionsOf(ctx), { where: conditions, orderBy, take }),
  );
  return { sessions: rows.map((row) => toDeviceView(ctx, row)), next_cursor: nextCursor };
}

/** Ends one of the user's sessions (the current one included: that is signing out here). Another user's id is 404. */
export async function revokeDevice(ctx: AuthedCtx, sessionId: string): Promise<void> {
  await ctx.deps.db.transaction(ctx.db, async (tx) => {
    const revoked = await revokeLive(ctx, tx, { only: sessionId });
    if (revoked.length === 0) throw new DomainError("NOT_FOUND", "not_found.session");
  });
}

/** Ends every session of the user but the one making the request. */
export async function revokeOtherDevices(ctx: AuthedCtx): Promise<{ revoked: number }> {
  const revoked = await ctx.deps.db.transaction(ctx.db, (tx) => revokeLive(ctx, tx, { except: ctx.auth.sid }));
  return { revoked: revoked.length };
}

async function revokeLive(ctx: AuthedCtx, tx: TenantTx, which: { only: string } | { except: string }) {
  const ids = await sessions.findIdsOfUser(tx, liveSessionsOf(ctx, which));
  if (ids.length === 0) return [];
  await sessions.revokeUnrevoked(tx, ids, { at: ctx.deps.clock.now(), reason: "revoked_by_user" });
  for (const id of ids) {
    await recordSecurityEvent(ctx, tx, ctx.tenant.id, { userId: ctx.auth.sub, type: "session.revoked", details: { session_id: id, current: id === ctx.auth.sid } });
  }
  return ids;
}
