/**
 * /demo/: the demo checkout app (apps/demo), served from its built files when they exist. Same origin
 * as the API, so the refresh cookie (Path=/api/v1/auth, SameSite=Strict) works in the browser.
 * Registered outside production only: the demo follows live links from the dev outbox.
 */
import fastifyStatic from "@fastify/static";
import type { FastifyPluginAsync } from "fastify";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** apps/demo/dist, from apps/api/src/http (tests) and apps/api/dist/http (the built service) alike. */
export const defaultDemoDir = fileURLToPath(new URL("../../../demo/dist/", import.meta.url));

export interface DemoOptions {
  dir: string;
}

/** Scripts, styles and data: URLs (the two-factor QR code) from this origin only; calls to this origin only. */
const contentSecurityPolicy =
  "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

export const demoPlugin: FastifyPluginAsync<DemoOptions> = async (app, opts) => {
  const root = path.resolve(opts.dir);
  if (!existsSync(path.join(root, "index.html"))) {
    app.log.info({ dir: root }, "demo app not built: /demo/ is off (pnpm --filter @mteja/demo build)");
    return;
  }
  await app.register(fastifyStatic, {
    root,
    prefix: "/demo/",
    // Vite names every asset by its content hash: cache those for good, revalidate the page itself.
    cacheControl: false,
    setHeaders: (reply, filePath) => {
      const hashed = filePath.startsWith(path.join(root, "assets") + path.sep);
      void reply.header("Cache-Control", hashed ? "public, max-age=31536000, immutable" : "no-cache");
      if (filePath.endsWith(".html")) void reply.header("Content-Security-Policy", contentSecurityPolicy);
    },
  });
  // The router ignores trailing slashes, so "/demo/" never reaches the plugin's "/demo/*" route.
  app.get("/demo", (_request, reply) => reply.sendFile("index.html"));
  // The pages the verification and reset mails link to when APP_URL is this origin's /demo (the dev start).
  for (const page of ["verify-email", "reset-password"]) app.get(`/demo/${page}`, (_request, reply) => reply.sendFile("index.html"));
  app.log.info({ url: "/demo/" }, "demo app served");
};
