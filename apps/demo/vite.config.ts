import { defineConfig, defaultClientConditions } from "vite";

// The API serves the built files at /demo/ (apps/api/src/http/demo.ts): same origin, so the refresh
// cookie (Path=/api/v1/auth, SameSite=Strict) reaches the service. `vite` (dev) proxies to a running API.
const api = process.env.MTEJA_API_URL ?? "http://localhost:3000";

export default defineConfig({
  root: import.meta.dirname,
  base: "/demo/",
  // @mteja/client is bundled from its TypeScript sources, like everywhere else in the workspace.
  resolve: { conditions: ["@mteja/source", ...defaultClientConditions] },
  build: { outDir: "dist", emptyOutDir: true, target: "es2022" },
  server: {
    proxy: Object.fromEntries(["/api", "/trpc", "/dev"].map((path) => [path, { target: api, changeOrigin: true }])),
  },
});
