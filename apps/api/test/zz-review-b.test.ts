/** Throw-away security review tests (issue 28). Not to be committed. */
import { describe, expect, it } from "vitest";
import { createAddressGuard } from "@mteja/webhooks";

describe("review B: address guard forms", () => {
  it("refuses the special forms", () => {
    const guard = createAddressGuard({ allowPrivate: false });
    const forms = [
      "::ffff:127.0.0.1", "0:0:0:0:0:ffff:7f00:1", "::127.0.0.1", "::7f00:1", "2002:7f00:1::1", "2002:a00:1::",
      "64:ff9b::7f00:1", "64:ff9b:1::a00:1", "fec0::1", "fe80::1", "fc00::1", "::", "::1", "100::1",
      "0.0.0.0", "100.64.0.1", "198.18.0.1", "192.0.0.8", "255.255.255.255", "240.0.0.1", "224.0.0.1",
      // not in the contract's list (for information)
      "::ffff:0:7f00:1", "2001::7f00:1", "2001:0:4136:e378:8000:63bf:3fff:fdd2", "3fff::1", "5f00::1",
    ];
    const result = Object.fromEntries(forms.map((address) => [address, guard.refusal(address)]));
    console.log(JSON.stringify(result, null, 1));
    for (const address of forms.slice(0, 21)) expect(result[address], address).not.toBeNull();
  });
});
