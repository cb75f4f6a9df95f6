/**
 * Bundles the client's declarations into one self-contained `dist/mteja-client.d.ts` for the published
 * package: the router's type is copied in from @mteja/domain (which is never published), and only
 * @trpc/* stays an import (the package depends on it).
 *
 * Two declarations of the server are replaced by stubs, because they describe the server and not the
 * API: a procedure's context (`Context`: the server's services, its database client…) and its
 * operation facts (`OperationMeta`). A tRPC client never reads either. So is the domain's index, where
 * the routers' declarations find those facts and the error codes.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { dts } from "rollup-plugin-dts";

const domainDist = join(dirname(fileURLToPath(import.meta.url)), "../domain/dist");
const stubs = {
  "context.d.ts": "/** The server's request context: not part of the API. */\nexport type Context = object;\nexport type Deps = object;\n",
  "shared/operation-meta.d.ts": "/** The server's facts about an operation: not part of the API. */\nexport type OperationMeta = object;\n",
  // The routers' declarations name those facts and the error codes through the package's index (the
  // shortest path TypeScript finds to them): of the index, only these two are read.
  "index.d.ts": `export type { ErrorCode } from ${JSON.stringify(join(domainDist, "shared/errors.d.ts"))};\nexport type OperationMeta = object;\n`,
};
const stubPrefix = "\0mteja-stub:";

/** @type {import("rollup").Plugin} */
const serverOnlyStubs = {
  name: "mteja-server-only-stubs",
  resolveId(source, importer) {
    // The router's declarations only; the rest of the domain's index (services, deps) is never read.
    if (source === "@mteja/domain") return join(domainDist, "router.d.ts");
    if (importer?.startsWith(stubPrefix) && source.startsWith(domainDist)) return source;
    if (!importer?.startsWith(domainDist) || !source.startsWith(".")) return null;
    const file = join(dirname(importer), source).replace(/\.js$/, ".d.ts");
    const stub = Object.keys(stubs).find((name) => file === join(domainDist, name));
    return stub ? stubPrefix + stub : file;
  },
  load(id) {
    return id.startsWith(stubPrefix) ? stubs[id.slice(stubPrefix.length)] : null;
  },
};

export default {
  input: "dist/index.d.ts",
  // @trpc/server's declarations name Disposable and AsyncDisposable, which only Node's types or the
  // esnext.disposable library declare: a browser-only project has neither unless the client brings it.
  output: { file: "dist/mteja-client.d.ts", format: "es", banner: '/// <reference lib="esnext.disposable" />' },
  external: (id) => /^@trpc\//.test(id),
  plugins: [serverOnlyStubs, dts({ respectExternal: true })],
};
