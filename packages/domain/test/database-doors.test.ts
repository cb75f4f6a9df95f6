import type { UnscopedReason } from "@mteja/db";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { sourceFiles, srcDir } from "./support/source-files.js";

/**
 * The domain and apps/api reach the database through its three doors only (docs/tenants.md#data-scoping):
 * a tenant's client (`forTenant`, on the context as `ctx.db`), every tenant's with a stated reason
 * (`unscoped("worker")`), and `Database.transaction`. Plain SQL stays inside @mteja/db, behind the
 * doors the repositories are handed.
 */
const apiSrcDir = fileURLToPath(new URL("../../../apps/api/src", import.meta.url));

/** Both source trees, each file named from the repository's root. */
function everySource(): { name: string; lines: string[] }[] {
  return [
    ...sourceFiles(srcDir).map((file) => ({ ...file, name: `packages/domain/src/${file.name}` })),
    ...sourceFiles(apiSrcDir).map((file) => ({ ...file, name: `apps/api/src/${file.name}` })),
  ];
}

const domain = (path: string) => `packages/domain/src/${path}`;
const api = (path: string) => `apps/api/src/${path}`;

/**
 * Where each reason may be stated: the areas it belongs to. A reason claimed elsewhere (a payment flow
 * saying "admin-api") is a crossing to look at; a new area with a reason of its own is a line here.
 * The reasons themselves, with what each means, are `UnscopedReason` (packages/db/src/doors.ts).
 */
const reasonsAllowedIn: Record<UnscopedReason, string[]> = {
  "admin-api": [domain("tenants/"), domain("security-events/audit.ts"), domain("payments/c2b/")],
  "tenant-directory": [domain("shared/tenant.ts")],
  "start-up": [domain("shared/tenant.ts"), domain("tenants/"), api("runtime/")],
  "operator-cli": [api("cli/")],
  "no-tenant-data": [domain("auth/tokens/"), api("runtime/daraja-provider.ts")],
  "api-key-lookup": [domain("api-keys/")],
  "daraja-callback": [domain("payments/")],
  "sms-delivery-report": [domain("sms/")],
  worker: [domain("payments/"), domain("intents/"), domain("webhooks/"), api("runtime/")],
  retention: [domain("retention/")],
  erasure: [domain("data-rights/")],
  metrics: [api("http/metrics.ts")],
  "dev-outbox": [api("http/dev-outbox.ts")],
  // Tests only.
  test: [],
};

const reasonPattern = /\.unscoped\(\s*"([a-z-]+)"\s*\)/g;

/** The unscoped door opened without a literal reason, or handed on without being opened. */
const reasonlessPattern = /\.unscoped\b(?!\(\s*"[a-z-]+"\s*\))/;

/** What the domain and apps/api never reach: plain SQL's handles, transactions opened on a client. */
const rawHandles: { name: string; pattern: RegExp }[] = [
  { name: "a transaction opened on a client (use Database.transaction)", pattern: /\$transaction\b/ },
  { name: "a raw SQL handle of the database", pattern: /\.(sql|rawTransaction|autocommit)\b/ },
  {
    name: "@mteja/db's plain SQL behind the doors",
    pattern: /\b(plainOf|plainFor|givePlainAccess)\b|plain-access|@mteja\/db\//,
  },
  { name: "raw SQL (a named function of @mteja/db instead)", pattern: /\$(queryRaw|executeRaw)(Unsafe)?\b/ },
];

/**
 * The tenant-scoped door with a tenant that is not the request's: the procedure ladder builds ctx.db;
 * the admin API's role change names its tenant in a header, and its account balance and Pull registration in
 * the path; the
 * reconciler's sweeps settle (or status-query) each claimed row through the tenant the claim returned.
 * An API key's management and its use name the key's tenant; the operator's report command names its
 * tenant in `--tenant`.
 */
const forTenantAllowedIn = [
  ...[
    "trpc.ts",
    "tenants/user-roles.ts",
    "api-keys/service.ts",
    "api-keys/credential.ts",
    "payments/balance/balance-tenant.ts",
    "payments/pull/pull-register.ts",
    "payments/stk/stk-reconciliation.ts",
    "payments/shared/leased-sweep.ts",
  ].map(domain),
  api("cli/report.ts"),
];

const isComment = (line: string) => /^\s*(\*|\/\/|\/\*)/.test(line);

function findings(check: (name: string, line: string) => string[]): string[] {
  const found: string[] = [];
  for (const { name, lines } of everySource()) {
    lines.forEach((line, index) => {
      if (!isComment(line)) for (const what of check(name, line)) found.push(`${name}:${index + 1} ${what}`);
    });
  }
  return found;
}

function reasonFindings(name: string, line: string): string[] {
  if (reasonlessPattern.test(line)) return ["opens the unscoped door without a literal reason"];
  const found: string[] = [];
  for (const [, reason] of line.matchAll(reasonPattern)) {
    const places = reasonsAllowedIn[reason as UnscopedReason];
    if (!places) found.push(`states an unknown reason "${reason}"`);
    else if (!places.some((place) => name.startsWith(place))) found.push(`states "${reason}", not its area's`);
  }
  return found;
}

describe("the database's doors, as the domain and apps/api use them", () => {
  it("cross tenants only with a stated reason, each where it belongs", () => {
    expect(findings(reasonFindings)).toEqual([]);
  });

  it("never reach plain SQL nor open a transaction on a client", () => {
    const uses = (line: string) => rawHandles.filter(({ pattern }) => pattern.test(line)).map(({ name }) => name);
    expect(findings((_, line) => uses(line))).toEqual([]);
  });

  it("pick a tenant other than the request's only where it is listed", () => {
    const picks = (name: string, line: string) => /\.forTenant\(/.test(line) && !forTenantAllowedIn.includes(name);
    expect(findings((name, line) => (picks(name, line) ? ["uses Database.forTenant"] : []))).toEqual([]);
  });

  it("would notice each breach", () => {
    const breaches = [
      "await ctx.deps.db.unscoped.user.findMany()",
      "const db = deps.db.unscoped(reason);",
      "await ctx.db.$transaction(async (tx) => work(tx))",
      "await deps.db.unscoped(\"worker\").$transaction((tx) => work(tx))",
      "findSession(deps.db.sql, key, live)",
      "deps.db.rawTransaction(fn)",
      "attempt(deps.db.autocommit, now)",
      'import { plainOf } from "@mteja/db/src/plain-access.js";',
      "await db.unscoped(\"metrics\").$queryRaw`SELECT 1`",
    ];
    for (const line of breaches) {
      const caught = reasonlessPattern.test(line) || rawHandles.some(({ pattern }) => pattern.test(line));
      expect([line, caught]).toEqual([line, true]);
    }
    const flow = domain("payments/stk/stk-push.ts");
    expect(reasonFindings(flow, 'tenants.all(deps.db.unscoped("admin-api"))')).toHaveLength(1);
    expect(reasonFindings(flow, 'tenants.all(deps.db.unscoped("whim" as never))')).toHaveLength(1);
    const fine = [
      'await callbacks.store(deps.db.unscoped("daraja-callback"), row)',
      "await deps.db.transaction(ctx.db, async (tx) => work(tx))",
      'await deps.db.transaction(ctx.db, "plain", async (tx) => work(tx))',
      "const statements = sql.split(';')",
    ];
    for (const line of fine) {
      const caught = reasonlessPattern.test(line) || rawHandles.some(({ pattern }) => pattern.test(line));
      expect([line, caught]).toEqual([line, false]);
    }
  });

  it("lists only places that exist", () => {
    const root = fileURLToPath(new URL("../../../", import.meta.url));
    const places = [...Object.values(reasonsAllowedIn).flat(), ...forTenantAllowedIn];
    for (const place of places) {
      const path = join(root, place);
      const exists = place.endsWith("/") ? sourceFiles(path).length > 0 : readFileSync(path, "utf8").length > 0;
      expect([place, exists]).toEqual([place, true]);
    }
  });
});
