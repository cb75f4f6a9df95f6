import { describe, expect, it } from "vitest";
import { deliveryStatusAdvances, parseDeliveryReport } from "../src/index.js";

/** A delivery report as Africa's Talking posted it (logged by a live app, 2020). */
const FAILED = "phoneNumber=%2B254706318147&failureReason=DeliveryFailure&retryCount=0&id=ATXid_8c7541e938f63538f971f946dd25b54e&status=Failed&networkCode=63902";

describe("delivery reports", () => {
  it("reads Africa's Talking's form", () => {
    expect(parseDeliveryReport(FAILED)).toEqual({
      id: "ATXid_8c7541e938f63538f971f946dd25b54e",
      status: "Failed",
      phoneNumber: "+254706318147",
      networkCode: "63902",
      failureReason: "DeliveryFailure",
    });
    expect(parseDeliveryReport("status=Success")).toBeUndefined();
  });

  it("applies statuses monotonically and never leaves a final one", () => {
    expect(deliveryStatusAdvances(null, "Submitted")).toBe(true);
    expect(deliveryStatusAdvances("Submitted", "Success")).toBe(true);
    expect(deliveryStatusAdvances("Buffered", "Submitted")).toBe(false);
    expect(deliveryStatusAdvances("Success", "Submitted")).toBe(false);
    expect(deliveryStatusAdvances("Failed", "Success")).toBe(false);
  });
});
