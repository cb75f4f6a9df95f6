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
import { watchStatements } from "./support/statements.js";

describe.skipIf(skipThisTarget || target !== "postgres")("sign-in round trips", () => {
  let t: TestApp;
  const watch = watchStatements();

  it.beforeAll(async ({ app }) => {
    t = app;
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
