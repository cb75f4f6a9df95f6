import type { Database } from "@mteja/db";
import { describe, expect, it } from "vitest";
import { createTenantDirectory } from "../src/tenants/directory.js";
import { fakeClock } from "./support/fake-ports.js";

function countingDatabase() {
  const reads: string[] = [];
  const db = {
    prisma: {
      tenant: {
        findUnique: async ({ where }: { where: { id: string } }) => {
          reads.push(where.id);
          return { id: where.id, name: "Duka", settings: {}, active: true };
        },
      },
    },
  } as unknown as Database;
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
});
