/**
 * The PostgreSQL project's global setup (vitest.config.ts): one migrated database for the whole run,
 * which every test file's database is created from (`CREATE DATABASE … TEMPLATE`), instead of each file's
 * service applying every migration to an empty one (about a second a file, on hundreds of files).
 * Dropped when the run ends. Without a reachable PostgreSQL there is none, and the files' own skipping
 * (database.ts) applies. It runs in vitest's main process, which loads the built `@mteja/db`
 * (`packages/db/dist`, made by the test command before vitest starts), not its sources.
 */
import type { TestProject } from "vitest/node";
import { createScratchDatabase, isPostgresReachable, openDatabase } from "@mteja/db";
import { adminUrl } from "./database-settings.js";

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  if (!(await isPostgresReachable(adminUrl))) {
    project.provide("postgresTemplate", undefined);
    return undefined;
  }
  const scratch = await createScratchDatabase(adminUrl, "mteja_template");
  try {
    const db = await openDatabase({ url: scratch.url, poolMax: 1 });
    try {
      await db.migrate();
    } finally {
      await db.close();
    }
  } catch (error) {
    await scratch.drop();
    throw error;
  }
  project.provide("postgresTemplate", scratch.name);
  return () => scratch.drop();
}
