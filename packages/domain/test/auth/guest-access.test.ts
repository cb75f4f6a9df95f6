/**
 * What a guest may call (docs/sign-in.md#guest-checkout) is declared on each procedure (`guestAllowed`):
 * the list below is the contract's ("refresh, logout, profile read, addresses, stkpush (intents
 * included), payments and payment status, and the upgrade operations"), so an operation opened to guests
 * by mistake, or one of theirs closed, fails here. Refresh and logout take the refresh cookie, which a
 * guest holds as anyone does: no bearer check to pass.
 */
import { describe, expect, it } from "vitest";
import { appRouter } from "../../src/router.js";
import { operationMetas } from "../../src/shared/operation-meta.js";
import { assertGuestMayCall } from "../../src/auth/guest/guest-access.js";
import { DomainError } from "../../src/shared/errors.js";

const guestOperations = [
  "addresses.create",
  "addresses.list",
  "addresses.remove",
  "addresses.setDefault",
  "addresses.update",
  "auth.guestUpgrade",
  "payments.get",
  "payments.list",
  "payments.onStatus",
  "payments.stkPush",
  "payments.stkQuery",
  "phone.meStart",
  "phone.meVerify",
  "profile.me",
];

describe("guest access", () => {
  it("exactly the contract's operations declare guestAllowed, each on a bearer credential", () => {
    const allowed = operationMetas(appRouter).filter(([, meta]) => meta.guestAllowed);
    expect(allowed.map(([name]) => name).sort()).toEqual(guestOperations);
    expect(allowed.every(([, meta]) => meta.credential === "bearer")).toBe(true);
  });

  it("a guest's token passes only where the operation allows guests; any other role passes everywhere", () => {
    const guest = { sub: "u", tid: "t", sid: "s", role: "guest" };
    expect(() => assertGuestMayCall(guest, { guestAllowed: true })).not.toThrow();
    const refused = (() => {
      try {
        assertGuestMayCall(guest, {});
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toBeInstanceOf(DomainError);
    expect(refused).toMatchObject({ code: "FORBIDDEN", status: 403 });
    for (const role of [null, "customer", "admin"]) expect(() => assertGuestMayCall({ ...guest, role }, {})).not.toThrow();
  });
});
