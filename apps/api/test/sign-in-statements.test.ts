/**
 * What one password sign-in costs in database round trips (docs/performance.md, "Sign-in"): every
 * statement the service's pg clients send between the request and its answer, and that none of them
 * goes through Prisma, whose interactive transaction costs several times a plain client's CPU per
 * statement, taken from the event loop the password hashes share. PostgreSQL only: the embedded
 * database is in process and has no round trips to save.
 */
import { describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import { registerUser, RestClient, type TestApp } from "./support/app.js";
import { skipThisTarget, target } from "./support/database.js";
import { isBackgroundWork, watchStatements } from "./support/statements.js";

describe.skipIf(skipThisTarget || target !== "postgres")("sign-in round trips", () => {
  let t: TestApp;
  const watch = watchStatements();

  it.beforeAll(async ({ app }) => {
    t = app;
  });

  it("leaves out the outbox and webhook workers' statements, which may run during a request, but not a request's own queueing", () => {
    // The SMS worker's claim once landed inside a recorded sign-in (a CI failure).
    const claim = (table: string) => `WITH due AS ( SELECT id, next_attempt_at AS due_at FROM ${table} WHERE sent_at IS NULL AND next_attempt_at <= $1 ORDER BY next_attempt_at LIMIT $2::int FOR UPDATE SKIP LOCKED ) UPDATE ${table} m SET next_attempt_at = $3`;
    expect(isBackgroundWork(claim("sms_outbox"))).toBe(true);
    expect(isBackgroundWork(claim("mail_outbox"))).toBe(true);
    // The webhook worker's fair claim and its record of an attempt (a statements test once caught the claim).
    expect(isBackgroundWork("WITH picked AS ( SELECT ranked.id FROM ( SELECT c.id FROM ( WITH RECURSIVE pending_endpoints AS ( (SELECT endpoint_id FROM webhook_deliveries WHERE status = 'pending'")).toBe(true);
    expect(isBackgroundWork("WITH attempt AS ( INSERT INTO webhook_attempts (id, tenant_id, event_id) VALUES ($1, $2, $3) ), endpoint AS ( UPDATE webhook_endpoints")).toBe(true);
    expect(isBackgroundWork("INSERT INTO sms_outbox (id, tenant_id, kind) VALUES ($1, $2, $3)")).toBe(false);
    expect(isBackgroundWork("INSERT INTO sessions (id, tenant_id, user_id) VALUES ($1, $2, $3)")).toBe(false);
  });

  it("signs in with 6 plain statements: the user read; BEGIN, the session, its refresh token, the sign_in.succeeded event, COMMIT", async () => {
    const client = new RestClient(t.url);
    const user = await registerUser(client);
    watch.start();
    const answer = await client.post("/api/v1/auth/login", { email: user.email, password: user.password });
    const statements = watch.stop();
    expect(answer.status).toBe(200);
    const listing = statements.map((statement) => `${statement.viaPrisma ? "prisma" : "plain "} ${statement.text.slice(0, 60)}`).join("\n");
    expect(statements.filter((statement) => statement.viaPrisma), listing).toEqual([]);
    expect(statements.map((statement) => statement.text.split(" ").slice(0, 3).join(" ")), listing).toEqual([
      expect.stringMatching(/^SELECT/),
      "BEGIN",
      "INSERT INTO sessions",
      "INSERT INTO refresh_tokens",
      "INSERT INTO security_events",
      "COMMIT",
    ]);
  });
});
