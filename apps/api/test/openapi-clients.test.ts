/**
 * The REST contract generates working clients, tried as a third party would: `openapi-typescript` on
 * the served /openapi.json, an `openapi-fetch` script (test/third-party/checkout.ts) compiled with
 * `tsc --strict` against those types and run against the service and the Daraja simulator —
 * register → me → an address → stkpush — with `jose` verifying the access token from the JWKS.
 */
import { execFile } from "node:child_process";
import { copyFile, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import openapiTS, { astToString, type OpenAPI3 } from "openapi-typescript";
import { afterAll, describe, expect } from "vitest";
import { uniqueEmail } from "./support/app.js";
import { skipThisTarget, target } from "./support/database.js";
import { it } from "./support/fixture.js";

const run = promisify(execFile);
const apiDir = resolve(import.meta.dirname, "..");
const tsc = resolve(apiDir, "../../node_modules/typescript/bin/tsc");

const strictTsconfig = {
  compilerOptions: {
    strict: true,
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true,
    target: "ES2022",
    module: "NodeNext",
    moduleResolution: "NodeNext",
    lib: ["ES2022", "DOM"],
    types: [],
    outDir: "out",
  },
  files: ["checkout.ts", "api.d.ts"],
};

// The document and the generated client are the same whatever the database: run once, on the embedded one
// (a tsc compile of the client is most of this file's time).
describe.skipIf(skipThisTarget || target !== "embedded")("clients generated from /openapi.json", () => {
  let work: string;
  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  it("compile in strict mode and run register → me → address → stkpush; jose verifies the token from the JWKS", async ({ momo }) => {
    work = await mkdtemp(join(tmpdir(), "mteja-openapi-"));
    // The third party's own dependencies: openapi-fetch and jose, as installed for this test.
    await symlink(join(apiDir, "node_modules"), join(work, "node_modules"), "dir");
    const document = (await (await fetch(`${momo.url}/openapi.json`)).json()) as OpenAPI3;
    const types = astToString(await openapiTS(document));
    // The events a shop receives are typed too (OpenAPI 3.1 `webhooks`), each with its own `data`.
    expect(types).toMatch(/export interface webhooks \{[\s\S]*"payment\.succeeded"[\s\S]*"refund\.failed"/);
    await writeFile(join(work, "api.d.ts"), types);
    await writeFile(join(work, "package.json"), JSON.stringify({ type: "module" }));
    await writeFile(join(work, "tsconfig.json"), JSON.stringify(strictTsconfig));
    await copyFile(join(apiDir, "test/third-party/checkout.ts"), join(work, "checkout.ts"));
    const compiled = await run(process.execPath, [tsc, "-p", work]).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? String(error) }));
    expect(compiled.stdout).toBe("");

    await writeFile(join(work, "run.mjs"), 'import { checkout } from "./out/checkout.js";\nconsole.log(JSON.stringify(await checkout(...process.argv.slice(2))));\n');
    const email = uniqueEmail("openapi");
    const { stdout } = await run(process.execPath, [join(work, "run.mjs"), momo.url, "default", email]);
    const seen = JSON.parse(stdout);
    expect(seen.me).toEqual({ id: expect.any(String), email });
    expect(seen.token).toEqual({ sub: seen.me.id, alg: "ES256", kid: expect.any(String) });
    expect(seen.addressId).toEqual(expect.any(String));
    expect(seen.payment).toMatchObject({ status: 200, paymentStatus: "PENDING", checkoutRequestId: expect.any(String) });
    expect(seen.refused).toEqual({ status: 401, code: "INVALID_CREDENTIALS", wrongPassword: true });
  }, 120_000);
});
