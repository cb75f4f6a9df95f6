/**
 * @mteja/client as a shop installs it: `pnpm pack` gives a tarball whose types stand alone (nothing of
 * the unpublished server packages), npm installs it into a folder outside the workspace, `tsc --strict`
 * type-checks a small app and the React Query example against it, and the app runs against the service
 * and the Daraja simulator: register → me → an address → an STK prompt (twice with one Idempotency-Key).
 *
 * One database is enough: what is tested is the package, not the storage.
 */
import { execFile } from "node:child_process";
import { copyFile, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect } from "vitest";
import { uniqueEmail } from "./support/app.js";
import { skipThisTarget, target } from "./support/database.js";
import { it } from "./support/fixture.js";

const run = promisify(execFile);
const root = resolve(import.meta.dirname, "../../..");
const clientDir = join(root, "packages/client");
const tsc = join(root, "node_modules/typescript/bin/tsc");

/** What the shop installs beside the client: Node's types for the app, TanStack Query for the example. */
const shopDependencies = ["@types/node@20.19.43", "@trpc/tanstack-react-query@11.22.1", "@tanstack/react-query@5.108.0", "react@19.3.1", "@types/react@19.3.0"];

const shopTsconfig = {
  compilerOptions: {
    strict: true,
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true,
    skipLibCheck: false,
    target: "ES2022",
    module: "NodeNext",
    moduleResolution: "NodeNext",
    jsx: "react-jsx",
    lib: ["ES2022", "DOM"],
    outDir: "out",
  },
  files: ["app.ts", "react-query.tsx"],
};

/** A front end's project: the browser's libraries only, no Node types, every declaration checked. */
const browserTsconfig = {
  compilerOptions: {
    strict: true,
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true,
    skipLibCheck: false,
    noEmit: true,
    target: "ES2022",
    module: "ESNext",
    moduleResolution: "Bundler",
    lib: ["ES2022", "DOM"],
    types: [],
  },
  files: ["app.ts"],
};

describe.skipIf(skipThisTarget || target !== "embedded")("@mteja/client installed from its tarball", () => {
  let shop: string;
  let browserShop: string;
  let tarball: string;

  it.beforeAll(async () => {
    shop = await mkdtemp(join(tmpdir(), "mteja-shop-"));
    await run("pnpm", ["exec", "turbo", "run", "build", "--filter=@mteja/client", "--output-logs=errors-only"], { cwd: root });
    await run("pnpm", ["pack", "--pack-destination", shop], { cwd: clientDir });
    const packed = (await readdir(shop)).find((name) => name.endsWith(".tgz"));
    if (!packed) throw new Error("pnpm pack made no tarball");
    tarball = join(shop, packed);
    await writeFile(join(shop, "package.json"), JSON.stringify({ name: "a-shop", private: true, type: "module" }));
    await writeFile(join(shop, "tsconfig.json"), JSON.stringify(shopTsconfig));
    await copyFile(join(clientDir, "test/consumer/app.ts"), join(shop, "app.ts"));
    await copyFile(join(clientDir, "examples/react-query.tsx"), join(shop, "react-query.tsx"));
    // --legacy-peer-deps: @trpc/tanstack-react-query pins its tRPC peers to its own release; any 11.x works.
    await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", "--legacy-peer-deps", tarball, ...shopDependencies], { cwd: shop });
    browserShop = await mkdtemp(join(tmpdir(), "mteja-browser-shop-"));
    await writeFile(join(browserShop, "package.json"), JSON.stringify({ name: "a-browser-shop", private: true, type: "module" }));
    await writeFile(join(browserShop, "tsconfig.json"), JSON.stringify(browserTsconfig));
    await copyFile(join(clientDir, "test/browser/app.ts"), join(browserShop, "app.ts"));
    await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", tarball], { cwd: browserShop });
  }, 240_000);
  afterAll(async () => {
    if (shop) await rm(shop, { recursive: true, force: true });
    if (browserShop) await rm(browserShop, { recursive: true, force: true });
  });

  it("packs a manifest and types that need nothing of the workspace", async () => {
    const manifest = JSON.parse((await run("tar", ["-xOf", tarball, "package/package.json"])).stdout);
    expect(manifest.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(manifest.private).toBeUndefined();
    // What a shop installs names nothing of this workspace, not even as a development dependency.
    expect(manifest.devDependencies).toBeUndefined();
    expect(JSON.stringify(manifest)).not.toContain("workspace:");
    expect(Object.keys(manifest.dependencies).filter((name: string) => name.startsWith("@mteja/"))).toEqual([]);
    expect(JSON.stringify(manifest.exports)).not.toContain("src/");
    const types = (await run("tar", ["-xOf", tarball, "package/dist/mteja-client.d.ts"], { maxBuffer: 16 * 1024 * 1024 })).stdout;
    const imported = [...types.matchAll(/from ['"]([^'"]+)['"]/g)].map((m) => m[1]);
    expect(new Set(imported)).toEqual(new Set(["@trpc/client", "@trpc/server"]));
    expect(types).toContain("RouterInputs");
  });

  it("type-checks a shop's app and the React Query example with tsc --strict outside the workspace", async () => {
    const result = await run(process.execPath, [tsc, "-p", shop], { cwd: shop }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? String(error) }));
    expect(result.stdout).toBe("");
  }, 180_000);

  it("type-checks a browser app in a strict project without Node's types", async () => {
    const result = await run(process.execPath, [tsc, "-p", browserShop], { cwd: browserShop }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? String(error) }));
    expect(result.stdout).toBe("");
  }, 180_000);

  it("runs the app against the service: register, me, an address, one STK prompt for a double tap", async ({ momo }) => {
    const email = uniqueEmail("shop");
    const { stdout } = await run(process.execPath, [join(shop, "out/app.js"), momo.url, "default", email], { cwd: shop });
    const seen = JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}");
    expect(seen.me).toEqual({ id: expect.any(String), email });
    expect(seen.addressCounty).toBe("nairobi");
    expect(seen.first).toMatchObject({ id: expect.any(String), checkoutRequestId: expect.any(String), status: "PENDING" });
    expect(seen.again.id).toBe(seen.first.id);
    expect(seen.refused).toBe("INVALID_CREDENTIALS");
    expect(seen.events).toEqual(["SIGNED_IN", "SIGNED_OUT"]);
    const payments = await momo.deps.db.unscoped("test").payment.count({ where: { userId: seen.me.id } });
    expect(payments).toBe(1);
  }, 120_000);
});
