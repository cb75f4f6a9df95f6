#!/usr/bin/env node
/**
 * `mteja`, the operator's command (docs/operations.md#the-operator-command). It reads and validates the
 * same settings as the service (environment variables) and works on the same database.
 */
import { openDatabase } from "@mteja/db";
import { DomainError, rotateSigningKey, toErrorEnvelope } from "@mteja/domain";
import { TRPCError } from "@trpc/server";
import { Command, InvalidArgumentError } from "commander";
import { ZodError } from "zod";
import { databaseOptionsOf } from "../runtime/database-options.js";
import { readSettings, SettingsError, type Settings } from "../settings.js";
import { runDoctor } from "./doctor.js";
import { openOperatorServices, type OperatorServices } from "./operator-services.js";
import { writeDailyReport } from "./report.js";

/** Failures the operator can act on: printed as one line, exit code 1. */
class CommandFailure extends Error {}

function settingsOrExit(): Settings {
  try {
    return readSettings();
  } catch (error) {
    if (error instanceof SettingsError) throw new CommandFailure(error.message);
    throw error;
  }
}

const print = (value: unknown) => console.log(JSON.stringify(value, null, 2));

/** Runs `work` on the operator's services and prints its answer; a refused call prints the API's words. */
async function withServices(work: (operator: OperatorServices, settings: Settings) => Promise<unknown>, settings = settingsOrExit()): Promise<void> {
  const operator = await openOperatorServices(settings);
  try {
    const answer = await work(operator, settings);
    // A command that wrote its own answer (a report's CSV) returns nothing to print.
    if (answer !== undefined) print(answer);
  } catch (error) {
    if (error instanceof TRPCError || error instanceof DomainError || error instanceof ZodError) {
      // The API's own words for it, as a REST client would read them in the error envelope.
      const { body } = toErrorEnvelope(error);
      const details = (body.error.details ?? []) as Array<{ path?: string; message?: string }>;
      throw new CommandFailure([`${body.message} (${body.error.code})`, ...details.map((d) => `  ${d.path}: ${d.message}`)].join("\n"));
    }
    throw error;
  } finally {
    await operator.close();
  }
}

const limit = (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 100) throw new InvalidArgumentError("a whole number from 1 to 100");
  return n;
};

const program = new Command("mteja").description("Operate a Mteja deployment: the settings are the service's environment variables.").showHelpAfterError();

program
  .command("migrate")
  .description("apply the database migrations that are missing, then exit (a pre-deploy job)")
  .action(async () => {
    const settings = settingsOrExit();
    const db = await openDatabase(databaseOptionsOf(settings, 2));
    try {
      const report = await db.migrate();
      print({ applied: report.applied });
    } finally {
      await db.close();
    }
  });

const tenants = program.command("tenants").description("the shops (tenants)");
tenants
  .command("create <id> <name>")
  .description("create a tenant")
  .action((id: string, name: string) => withServices(async ({ admin }) => (await admin.admin.createTenant({ id, name })).data.tenant));
tenants
  .command("list")
  .description("list every tenant")
  .action(() => withServices(async ({ admin }) => (await admin.admin.listTenants()).data.tenants));
for (const [verb, active] of [
  ["disable", false],
  ["enable", true],
] as const) {
  tenants
    .command(`${verb} <id>`)
    .description(active ? "let a disabled tenant's requests in again" : "refuse every request of a tenant (its data stays)")
    .action((id: string) => withServices(async ({ admin }) => (await admin.admin.updateTenant({ id, active })).data.tenant));
}

const apiKeys = program.command("api-keys").description("a tenant's API keys (its servers' credentials)");
apiKeys
  .command("create <tenant> <name>")
  .description("create an API key; the key is printed once")
  .action((tenant: string, name: string) => withServices(async ({ admin }) => (await admin.apiKeys.create({ id: tenant, name })).data));
apiKeys
  .command("list <tenant>")
  .description("list a tenant's API keys, newest first (never the keys themselves)")
  .option("--limit <n>", "at most this many (1-100)", limit, 20)
  .option("--cursor <id>", "next_cursor of the previous page")
  .action((tenant: string, options: { limit: number; cursor?: string }) =>
    withServices(async ({ admin }) => (await admin.apiKeys.list({ id: tenant, limit: options.limit, ...(options.cursor ? { cursor: options.cursor } : {}) })).data),
  );
apiKeys
  .command("revoke <tenant> <key-id>")
  .description("revoke an API key: refused from the next request on")
  .action((tenant: string, keyId: string) =>
    withServices(async ({ admin }) => {
      await admin.apiKeys.revoke({ id: tenant, keyId });
      return { revoked: keyId };
    }),
  );

const keys = program.command("keys").description("the access-token signing keys");
keys
  .command("rotate")
  .description("make a new signing key; the previous one stays published and accepted until its tokens have expired")
  .action(() => {
    const settings = settingsOrExit();
    if (settings.JWT_PRIVATE_KEY) {
      throw new CommandFailure("JWT_PRIVATE_KEY is set: only that key signs and stored keys are ignored. Deploy a new JWT_PRIVATE_KEY instead (docs/operations.md#keys-and-their-rotation).");
    }
    return withServices(async ({ services }) => {
      const { db, cipher, clock } = services.deps;
      const rotation = await rotateSigningKey(db, cipher, { now: clock.now(), accessTokenTtlSeconds: settings.ACCESS_TOKEN_TTL_SECONDS });
      return { kid: rotation.kid, retired: rotation.retired ? { kid: rotation.retired.kid, not_after: rotation.retired.notAfter.toISOString() } : null };
    }, settings);
  });

const reports = program.command("report").description("a tenant's reports (docs/reports.md)");
reports
  .command("daily")
  .description("the money a tenant's account moved in one Nairobi day, as CSV: the bytes of GET /api/v1/reports/daily")
  .requiredOption("--tenant <id>", "the tenant")
  .option("--date <YYYY-MM-DD>", "the day, in Nairobi time (default: yesterday)")
  .option("--out <file>", "write the CSV to this file instead of stdout")
  .action((options: { tenant: string; date?: string; out?: string }) =>
    withServices(async ({ services }) => {
      const request = { tenant: options.tenant, date: options.date };
      await writeDailyReport(services.deps, request, options.out ?? process.stdout);
    }),
  );

program
  .command("prune")
  .description("delete the rows kept longer than the RETENTION_*_DAYS settings, then exit")
  .action(() => withServices(async ({ services }) => ({ deleted: await services.retention.runOnce() })));

program
  .command("doctor")
  .description("check the settings, database, Redis, SMTP and Daraja; exit code 1 when something is wrong")
  .action(async () => {
    const findings = await runDoctor(process.env);
    for (const f of findings) console.log(`${f.status.toUpperCase().padEnd(4)}  ${f.check}: ${f.message}`);
    const failed = findings.filter((f) => f.status === "fail").length;
    console.log(failed ? `\n${failed} problem(s) found.` : "\nNothing wrong found.");
    if (failed) process.exitCode = 1;
  });

program.parseAsync().catch((error: unknown) => {
  console.error(error instanceof CommandFailure ? error.message : error);
  process.exit(1);
});
