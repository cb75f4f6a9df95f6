/**
 * No test reaches an address off loopback (docs/sign-in.md: outside services are never reached by
 * tests): the guard of support/network-guard.ts refuses the connection before anything leaves and
 * fails the test that tried (file-defaults.ts). Checked here by trying, then taking the attempt back
 * so this test itself passes.
 */
import { describe, expect } from "vitest";
import { skipDatabaseAgnostic } from "./support/database.js";
import { it } from "./support/fixture.js";
import { isLoopbackHost, takeOffLoopbackAttempts } from "./support/network-guard.js";

describe.skipIf(skipDatabaseAgnostic)("test network guard", () => {
  it("refuses a connection off loopback (fetch, by address and by name) and records it; loopback goes through", async ({ app }) => {
    await expect(fetch("http://192.0.2.10:8080/range/5BAA6", { signal: AbortSignal.timeout(5_000) })).rejects.toThrow();
    await expect(fetch("https://api.pwnedpasswords.com/range/5BAA6", { signal: AbortSignal.timeout(5_000) })).rejects.toThrow();
    expect(takeOffLoopbackAttempts()).toEqual(["192.0.2.10:8080", "api.pwnedpasswords.com:443"]);
    expect((await fetch(`${app.url}/healthz`)).status).toBe(200);
    expect(takeOffLoopbackAttempts()).toEqual([]);
  });

  it("knows loopback when it sees it", () => {
    for (const host of ["localhost", "127.0.0.1", "127.3.2.1", "::1", "[::1]", "::ffff:127.0.0.1"]) expect(isLoopbackHost(host)).toBe(true);
    for (const host of ["10.0.0.1", "192.0.2.10", "example.com", "::ffff:10.0.0.1", "2001:db8::1"]) expect(isLoopbackHost(host)).toBe(false);
  });
});
