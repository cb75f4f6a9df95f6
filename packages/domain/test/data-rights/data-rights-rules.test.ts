import { describe, expect, it } from "vitest";
import { maskPhone } from "../../src/data-rights/mask-phone.js";

describe("maskPhone", () => {
  it("keeps the country code and the last three digits", () => {
    expect(maskPhone("254712345678")).toBe("254******678");
    expect(maskPhone("254110000123")).toBe("254******123");
  });

  it("leaves a masked value as it is, and hides a short one entirely", () => {
    expect(maskPhone("254******678")).toBe("254******678");
    expect(maskPhone("12345")).toBe("*****");
  });

  it("drops anything but digits", () => {
    expect(maskPhone("+254 712 345 678")).toBe("254******678");
  });
});
