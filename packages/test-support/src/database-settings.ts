/** Which database the API tests run on, and where PostgreSQL is (MTEJA_TEST_DB, MTEJA_TEST_PG_URL). */
export const adminUrl = process.env.MTEJA_TEST_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
export const target = (process.env.MTEJA_TEST_DB ?? "embedded") as "embedded" | "postgres";

declare module "vitest" {
  export interface ProvidedContext {
    /** The migrated database each PostgreSQL test database is a copy of (postgres-template.ts); undefined: none, its service migrates it. */
    postgresTemplate: string | undefined;
  }
}
