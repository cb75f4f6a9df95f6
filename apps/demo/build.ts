/** Builds the demo with vite.config.ts into `outDir` (the API's end-to-end test builds into a temp dir). */
import path from "node:path";
import { build } from "vite";

export const demoRoot = import.meta.dirname;

export async function buildDemo(outDir: string): Promise<void> {
  await build({
    configFile: path.join(demoRoot, "vite.config.ts"),
    build: { outDir: path.resolve(outDir), emptyOutDir: true },
    logLevel: "warn",
  });
}
