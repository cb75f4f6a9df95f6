import { defineConfig } from "prisma/config";

// Used only by `prisma generate`; migrations are applied by src/migrator.ts (see README "Database").
export default defineConfig({
  schema: "../../prisma/schema.prisma",
  migrations: { path: "../../prisma/migrations" },
});
