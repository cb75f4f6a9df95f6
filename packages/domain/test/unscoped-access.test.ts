import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sourceFiles, srcDir } from "./support/source-files.js";

/**
 * Tenant-owned data is reached through the scoped client on the context (`ctx.db`, docs/tenants.md#data-scoping).
 * The doors past it are named, and each is open only to the files listed here: a new cross-tenant
 * query has to be added to this list, where a reviewer sees it.
 */
const doors: { name: string; pattern: RegExp; allowed: string[] }[] = [
  {
    name: "Database.unscoped",
    pattern: /\.unscoped\b/,
    allowed: [
      // The tenant directory resolves tenants; the admin API creates, lists and updates them.
      "shared/tenant.ts",
      "tenants/router.ts",
      // Start-up task over every tenant's settings.
      "tenants/daraja-secrets.ts",
      // The signing keys are shared by every tenant.
      "auth/tokens/signing-keys.ts",
      // An API key names its tenant: the lookup by the key's hash is the one that cannot be scoped.
      "api-keys/credential.ts",
      // The reconciler expires every tenant's due payment intents in one statement.
      "intents/intent-expiry-sweep.ts",
      // The webhook delivery worker claims due deliveries of every tenant.
      "webhooks/delivery-worker.ts",
      // Daraja's callbacks are stored before anyone knows their tenant (momo_callbacks is no tenant's data).
      "payments/callbacks.ts",
      // Erasure masks the customer's phone in their stored callbacks, found by Daraja's ids of the shop's own rows (unique across shops).
      "data-rights/erased-callbacks.ts",
      // Callbacks held for a CheckoutRequestID not yet stored (momo_callbacks) are looked up to be applied.
      "payments/stk/stk-callbacks.ts",
      // The reconciler's sweeps claim due rows of every tenant, then settle each through its tenant's client.
      "payments/stk/stk-reconciliation.ts",
      "payments/payouts/payout-reconciliation.ts",
      "payments/reversals/reversal-reconciliation.ts",
      // ...and keep the leases of the rows they claimed, of every tenant, while they work.
      "payments/shared/leased-sweep.ts",
      // The reconciler reads the tenant of each claimed row for its Daraja account.
      "payments/reconciliation.ts",
      // A C2B notification names only a short code: the tenant is found from it (tenant ids only), and
      // the validation reads the intent its account names on that tenant (named in the query).
      "payments/shared/short-codes.ts",
      "payments/c2b/c2b-tenant.ts",
      "payments/c2b/c2b-callbacks.ts",
      // Pull's rows are looked up by receipt (unique across shops) and stored as callbacks are; its sweep
      // claims the due registrations of every tenant.
      "payments/pull/pulled-receipts.ts",
      "payments/pull/pull-sweep.ts",
      // The pruning job deletes expired rows of every tenant (and of no tenant), by a table of rules.
      "retention/prune.ts",
      // An SMS delivery report names Africa's Talking's message id only, no tenant.
      "sms/delivery-reports.ts",
      // The operator's audit (GET /api/v1/admin/audit) lists the security events of every tenant, or of one.
      "security-events/audit.ts",
    ],
  },
  {
    name: "Database.sql (raw SQL outside Prisma)",
    pattern: /\bdb\.sql\b/,
    // The live-session reads of every authenticated request and GET /me, and the user of a password
    // sign-in (read by every login); they name the tenant themselves. Storing a Daraja callback
    // (momo_callbacks belong to no tenant), a pulled receipt's record among them.
    allowed: [
      "auth/sessions/sessions.ts",
      "profile/service.ts",
      "auth/service.ts",
      "payments/callbacks.ts",
      "payments/pull/pulled-receipts.ts",
    ],
  },
  {
    name: "Database.rawTransaction (raw SQL in a transaction outside Prisma)",
    pattern: /\.rawTransaction\b/,
    // A callback finds its payment or payout by Daraja's ids, which name no tenant; the settling that
    // follows stays on this transaction, as a tenant's client would need a second one and lose the locks.
    // A sign-in's session, refresh token and event (startSession), written with the user's tenant named.
    allowed: ["payments/shared/stored-callback.ts", "auth/service.ts"],
  },
  {
    name: "Database.autocommit (raw SQL outside Prisma, each statement its own transaction)",
    pattern: /\.autocommit\b/,
    // A callback applied without locks: the payment read by Daraja's ids, then settled in one guarded statement.
    allowed: ["payments/shared/stored-callback.ts"],
  },
  {
    name: "Database.forTenant",
    pattern: /\.forTenant\(/,
    // The procedure ladder builds ctx.db; the admin API's role change names its tenant in a header, and its
    // account balance and Pull registration in the path; the reconciler's sweeps settle (or status-query) each claimed row through
    // the tenant the claim returned. An API key's management and its use name the key's tenant.
    allowed: [
      "trpc.ts",
      "tenants/user-roles.ts",
      "api-keys/service.ts",
      "api-keys/credential.ts",
      "payments/balance/balance-tenant.ts",
      "payments/pull/pull-register.ts",
      "payments/stk/stk-reconciliation.ts",
      "payments/shared/leased-sweep.ts",
    ],
  },
];

function doorUses(dir: string): string[] {
  const found: string[] = [];
  for (const { name, lines } of sourceFiles(dir)) {
    lines.forEach((line, index) => {
      for (const door of doors) if (door.pattern.test(line) && !door.allowed.includes(name)) found.push(`${name}:${index + 1} uses ${door.name}`);
    });
  }
  return found;
}

describe("domain code and the unscoped database", () => {
  it("reaches past the tenant scope only in the files allowed to", () => {
    expect(doorUses(srcDir)).toEqual([]);
  });

  it("would notice a use elsewhere", () => {
    const samples = ["await ctx.deps.db.unscoped.user.findMany()", "findSession(deps.db.sql, key, live)", "deps.db.rawTransaction(fn)", "attempt(deps.db.autocommit, now)", "deps.db.forTenant(id)"];
    for (const [index, door] of doors.entries()) expect(door.pattern.test(samples[index]!)).toBe(true);
    expect(doors.every((door) => !door.pattern.test("await ctx.db.user.findMany()"))).toBe(true);
  });

  it("lists only files that exist and still use their door", () => {
    for (const door of doors) {
      for (const name of door.allowed) expect([name, door.pattern.test(readFileSync(join(srcDir, name), "utf8"))]).toEqual([name, true]);
    }
  });
});
