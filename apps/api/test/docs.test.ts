/**
 * The API reference: /openapi.json describes every operation the way the service really answers
 * (security per operation, the error envelope, examples), and /docs renders it in a real browser
 * with everything served locally.
 */
import { existsSync } from "node:fs";
import { appRouter } from "@mteja/domain";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { it } from "./support/fixture.js";
import { RestClient, type TestApp } from "./support/app.js";
import { skipThisTarget, target } from "./support/database.js";

type Json = Record<string, any>;
const methods = ["get", "post", "put", "patch", "delete"];

function operations(doc: Json): Array<{ method: string; path: string; op: Json }> {
  return Object.entries(doc.paths as Record<string, Json>).flatMap(([path, item]) =>
    methods.filter((m) => item[m]).map((method) => ({ method, path, op: item[method] as Json })),
  );
}

describe.skipIf(skipThisTarget)("API documentation", () => {
  let t: TestApp;
  let doc: Json;
  it.beforeAll(async ({ app }) => {
    t = app;
    doc = (await new RestClient(t.url).get("/openapi.json")).body;
  });

  describe("GET /openapi.json", () => {
    it("documents every procedure that has a REST path, plus Daraja's callbacks", () => {
      const documented = new Set(operations(doc).map(({ method, path }) => `${method.toUpperCase()} ${path}`));
      const procedures = Object.values(appRouter._def.procedures as unknown as Record<string, { _def: { meta?: { openapi?: { method: string; path: string } } } }>)
        .map((p) => p._def.meta?.openapi)
        .filter((m): m is { method: string; path: string } => m !== undefined);
      expect(procedures.length).toBeGreaterThan(20);
      for (const meta of procedures) expect(documented).toContain(`${meta.method.toUpperCase()} ${meta.path}`);
      for (const path of ["/api/momo/callback/stkpush", "/api/momo/callback/b2c/result", "/api/momo/callback/b2c/timeout"]) {
        expect(doc.paths[path]?.post, path).toBeDefined();
      }
    });

    it("has the bearer and refresh-cookie security schemes, applied per operation", () => {
      expect(doc.components.securitySchemes.Authorization).toMatchObject({ type: "http", scheme: "bearer", bearerFormat: "JWT" });
      expect(doc.components.securitySchemes.refreshCookie).toMatchObject({ type: "apiKey", in: "cookie", name: "refresh_token" });
      expect(doc.paths["/api/v1/auth/login"].post.security).toEqual([]);
      expect(doc.paths["/api/v1/auth/register"].post.security).toEqual([]);
      expect(doc.paths["/api/v1/auth/refresh"].post.security).toEqual([{ refreshCookie: [] }]);
      expect(doc.paths["/api/v1/auth/me"].get.security).toEqual([{ Authorization: [] }]);
      expect(doc.paths["/api/v1/addresses"].get.security).toEqual([{ Authorization: [] }]);
      expect(doc.paths["/api/v1/admin/tenants"].get.security).toEqual([{ adminApiKey: [] }]);
    });

    it("gives every operation a success schema and every error the envelope with an example per code", () => {
      for (const { method, path, op } of operations(doc)) {
        const where = `${method.toUpperCase()} ${path}`;
        const success = Object.entries(op.responses as Json).find(([status]) => Number(status) < 300)?.[1] as Json | undefined;
        // JSON, or the one media type of a file answer (a report's text/csv); a redirect (Sign in with Google) its Location.
        if (op.responses["302"]) expect(op.responses["302"].headers?.Location?.schema, where).toBeDefined();
        else expect(Object.values((success?.content ?? {}) as Json)[0]?.schema, where).toBeDefined();
        if (["post", "put", "patch"].includes(method) && op.requestBody) expect(op.requestBody.content["application/json"].schema, where).toBeDefined();
        for (const [status, response] of Object.entries(op.responses as Json)) {
          if (Number(status) < 400) continue;
          const content = (response as Json).content?.["application/json"];
          expect(content?.schema, `${where} ${status}`).toEqual({ $ref: "#/components/schemas/ErrorEnvelope" });
        }
      }
      const login = doc.paths["/api/v1/auth/login"].post;
      expect(login.responses["401"].content["application/json"].examples.INVALID_CREDENTIALS.value).toEqual({
        success: false,
        message: expect.any(String),
        error: { code: "INVALID_CREDENTIALS" },
      });
      expect(login.requestBody.content["application/json"].schema.properties.email.examples).toEqual(["wanjiku@example.com"]);
      expect(Object.keys(doc.components.schemas).some((name) => name.startsWith("error."))).toBe(false);
    });

    it("documents a DELETE's input as a JSON body, so no password is put in a URL", () => {
      const disable = doc.paths["/api/v1/auth/otp/disable"].delete;
      expect((disable.parameters as Json[]).some((p) => p.in === "query")).toBe(false);
      // `password`, or `sms_code` for an account without one (docs/phone-sign-in.md), and `code` that
      // completes the proof on a session that is not fresh (docs/step-up.md): all in the body.
      expect(Object.keys(disable.requestBody.content["application/json"].schema.properties).sort()).toEqual(["code", "password", "sms_code"]);
    });

    it("describes the answers the service really gives: a documented error example matches a live one", async () => {
      const res = await new RestClient(t.url).post("/api/v1/auth/login", { email: "nobody@example.com", password: "wrong password" });
      const example = doc.paths["/api/v1/auth/login"].post.responses[String(res.status)].content["application/json"].examples[res.body.error.code].value;
      expect(Object.keys(res.body).sort()).toEqual(Object.keys(example).sort());
      expect(res.body.error).toEqual(example.error);
    });
  });

  // A real browser is slow to start: the embedded project covers it (the page does not touch the database).
  const chromiumPath = "/usr/bin/chromium";
  const haveChromium = existsSync(chromiumPath);
  if (!haveChromium && process.env.CI === "true") throw new Error(`${chromiumPath} is required under CI=true (.ci/run installs it)`);

  describe.skipIf(!haveChromium || target !== "embedded")("GET /docs in headless Chromium", () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await chromium.launch({
        executablePath: chromiumPath,
        args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
      });
    });
    afterAll(async () => browser?.close());

    it("loads with no console errors, fetches nothing from elsewhere, and lists every REST path", async () => {
      const page = await browser.newPage();
      const problems: string[] = [];
      const foreign: string[] = [];
      page.on("console", (message) => {
        if (message.type() === "error") problems.push(message.text());
      });
      page.on("pageerror", (error) => problems.push(error.message));
      page.on("request", (request) => {
        if (!request.url().startsWith(t.url) && !request.url().startsWith("data:")) foreign.push(request.url());
      });

      const response = await page.goto(`${t.url}/docs`, { waitUntil: "networkidle" });
      expect(response?.status()).toBe(200);
      for (const path of Object.keys(doc.paths)) {
        await page.getByText(path, { exact: true }).first().waitFor({ state: "attached", timeout: 15_000 });
      }
      const text = await page.innerText("body");
      for (const path of Object.keys(doc.paths)) expect(text, path).toContain(path);
      expect(problems).toEqual([]);
      expect(foreign).toEqual([]);
      await page.close();
    }, 60_000);
  });
});
