// Runs `prisma generate` offline. Prisma's CLI first looks for a native schema engine it would
// download; generate does not use it, so any executable file satisfies the check (stack-notes.md).
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

const placeholder = path.join(os.tmpdir(), "mteja-prisma-schema-engine-placeholder");
if (!existsSync(placeholder)) {
  writeFileSync(placeholder, "#!/bin/sh\nexit 1\n");
  chmodSync(placeholder, 0o755);
}
execFileSync("prisma", ["generate"], {
  stdio: "inherit",
  env: { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? placeholder, PRISMA_HIDE_UPDATE_MESSAGE: "1" },
});
