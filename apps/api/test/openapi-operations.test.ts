/**
 * Every REST operation is documented well enough to generate a client and to handle its failures:
 * an operationId, a summary, its error responses with their codes (each an API error code answered at
 * that status) and examples of its input and its success. Only the summary (and the codes of the
 * operation's own rules, `openapi.errorResponses`) are written on the procedure; the rest is derived
 * from its declared facts (apps/api/src/http/rest/document.ts), so a new procedure fails here only
 * when it lacks a summary or declares a code that is not one.
 */
import { createTRPCRouter, errorStatus, publicProcedure } from "@mteja/domain";
import { describe, expect } from "vitest";
import { z } from "zod";
import { buildOpenApiDocument } from "../src/http/rest/index.js";
import { RestClient } from "./support/app.js";
import { skipDatabaseAgnostic } from "./support/database.js";
import { it } from "./support/fixture.js";

type Json = Record<string, any>;
const methods = ["get", "post", "put", "patch", "delete"];

/** Codes that one rule answers at a second status (docs/errors.md). */
// MALFORMED_REQUEST is also what Node's parser answers, with 431, to a URL or headers over its limit.
const secondStatus: Record<string, number[]> = { INVALID_TOKEN: [400], MALFORMED_REQUEST: [431] };

/** What a third party would miss in the document, one line per operation and gap. */
function documentationProblems(doc: Json): { problems: string[]; count: number } {
  const problems: string[] = [];
  const operationIds = new Set<string>();
  let count = 0;
  for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
    // Daraja's callbacks are documented by hand: they are Safaricom's contract, not ours.
    if (path.startsWith("/api/momo/callback/")) continue;
    for (const method of methods.filter((m) => item[m])) {
      count += 1;
      const op = item[method] as Json;
      const where = `${method.toUpperCase()} ${path}`;
      const missing = (what: string) => problems.push(`${where}: ${what}`);

      if (typeof op.operationId !== "string" || !op.operationId) missing("no operationId");
      else if (operationIds.has(op.operationId)) missing(`operationId ${op.operationId} is used twice`);
      else operationIds.add(op.operationId);
      if (typeof op.summary !== "string" || !op.summary.trim()) missing("no summary: add openapi.summary to its procedure's .meta()");

      const responses = Object.entries(op.responses as Record<string, Json>);
      const errors = responses.filter(([status]) => Number(status) >= 400);
      if (!errors.length) missing("no error responses");
      for (const [status, response] of errors) {
        const codes = Object.keys(response.content?.["application/json"]?.examples ?? {});
        if (!codes.length) missing(`${status} names no error code`);
        for (const code of codes) {
          const expected = (errorStatus as Record<string, number>)[code];
          if (expected === undefined) missing(`${status} names ${code}, which is not an error code (packages/domain/src/shared/errors.ts)`);
          else if (expected !== Number(status) && !secondStatus[code]?.includes(Number(status))) missing(`${status} names ${code}, which is answered with ${expected}`);
        }
      }

      const success = responses.find(([status]) => Number(status) < 300)?.[1];
      // JSON, or the one media type of a file answer (a report's text/csv).
      const successMedia = Object.values((success?.content ?? {}) as Record<string, Json>)[0];
      // A redirect (Sign in with Google's browser navigations) has no body: an example of its Location.
      const redirect = (op.responses as Record<string, Json>)["302"];
      if (redirect) {
        if (redirect.headers?.Location?.example === undefined) missing("no example of its redirect's Location");
      } else if (successMedia?.example === undefined) missing("no example of its success");
      const body = op.requestBody?.content?.["application/json"];
      if (body && body.example === undefined) missing("no example of its request body");
      for (const parameter of (op.parameters ?? []) as Json[]) {
        if (parameter.example === undefined) missing(`no example of parameter ${parameter.name}`);
      }
    }
  }
  return { problems, count };
}

describe.skipIf(skipDatabaseAgnostic)("every operation of /openapi.json", () => {
  it("has an operationId, a summary, its error codes and examples", async ({ app }) => {
    const doc: Json = (await new RestClient(app.url).get("/openapi.json")).body;
    const { problems, count } = documentationProblems(doc);
    expect(count).toBeGreaterThan(40);
    expect(problems).toEqual([]);
  });

  it("names what a new procedure lacks: its summary, or a code its errorResponses get wrong", () => {
    const thing = z.object({ success: z.literal(true), data: z.object({ name: z.string() }) });
    const router = createTRPCRouter({
      careless: publicProcedure
        .meta({ openapi: { method: "POST", path: "/v9/careless", errorResponses: { 403: "Forbidden", 409: "NOT_FOUND" } } })
        .input(z.object({ name: z.string() }))
        .output(thing)
        .mutation(({ input }) => ({ success: true as const, data: input })),
    });
    const { problems } = documentationProblems(buildOpenApiDocument(router, "http://localhost") as unknown as Json);
    expect(problems).toEqual([
      "POST /v9/careless: no summary: add openapi.summary to its procedure's .meta()",
      "POST /v9/careless: 403 names no error code",
      "POST /v9/careless: 409 names NOT_FOUND, which is answered with 404",
    ]);
  });
});
