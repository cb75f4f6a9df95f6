import type { Database } from "@mteja/db";
import { describe, expect, it } from "vitest";
import { createTenantDirectory } from "../../src/shared/tenant.js";
import { fakeClock } from "../support/fake-ports.js";

function countingDatabase() {
  const reads: string[] = [];
  const unscoped = {
    tenant: {
      findUnique: async ({ where }: { where: { id: string } }) => {
        reads.push(where.id);
        return { id: where.id, name: "Duka", settings: {}, active: true };
      },
      findMany: async () => {
        reads.push("*");
        return [
          { id: "duka", name: "Duka", settings: { corsOrigins: ["https://duka.example.co.ke/"] }, active: true },
          { id: "soko", name: "Soko", settings: { corsOrigins: ["https://soko.example.co.ke"], displayName: 42 }, active: true },
        ];
      },
    },
  };
  const db = { unscoped: () => unscoped } as unknown as Database;
  return { db, reads };
}

describe("the tenant directory's cache", () => {
  it("answers from memory for ttlMs of the clock's elapsed time, then reads again", async () => {
    const clock = fakeClock();
    const { db, reads } = countingDatabase();
    const tenants = createTenantDirectory(db, { ttlMs: 30_000, clock });
    expect(await tenants.find("duka")).toMatchObject({ id: "duka", name: "Duka" });
    clock.advance(29_999);
    await tenants.find("duka");
    expect(reads).toEqual(["duka"]);
    clock.advance(1);
    await tenants.find("duka");
    expect(reads).toEqual(["duka", "duka"]);
  });

  it("reads again at once after invalidate, and never for an id that cannot be a tenant", async () => {
    const { db, reads } = countingDatabase();
    const tenants = createTenantDirectory(db, { ttlMs: 30_000, clock: fakeClock() });
    await tenants.find("duka");
    tenants.invalidate("duka");
    await tenants.find("duka");
    expect(await tenants.find("Not A Slug")).toBeUndefined();
    expect(reads).toEqual(["duka", "duka"]);
  });

  it("knows every shop's CORS origins (normalised) for preflights, cached for ttlMs and dropped on invalidate", async () => {
    const clock = fakeClock();
    const { db, reads } = countingDatabase();
    const tenants = createTenantDirectory(db, { ttlMs: 30_000, clock });
    expect([...(await tenants.everyCorsOrigin())].sort()).toEqual(["https://duka.example.co.ke", "https://soko.example.co.ke"]);
    clock.advance(29_999);
    await tenants.everyCorsOrigin();
    expect(reads).toEqual(["*"]);
    tenants.invalidate("duka");
    await tenants.everyCorsOrigin();
    expect(reads).toEqual(["*", "*"]);
  });
});
