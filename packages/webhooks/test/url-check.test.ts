import { describe, expect, it } from "vitest";
import { endpointUrlProblem } from "../src/url-check.js";

const resolvingTo = (...addresses: string[]) => async () => addresses;

describe("endpointUrlProblem", () => {
  it("accepts http and private addresses outside production", async () => {
    expect(await endpointUrlProblem("http://127.0.0.1:8080/hooks", { publicHttpsOnly: false })).toBeNull();
    expect(await endpointUrlProblem("http://localhost/hooks", { publicHttpsOnly: false, resolve: resolvingTo("127.0.0.1") })).toBeNull();
  });

  it("in production, wants https and a name whose every address is public", async () => {
    const rules = (addresses: string[]) => ({ publicHttpsOnly: true, resolve: resolvingTo(...addresses) });
    expect(await endpointUrlProblem("http://shop.example.com/hooks", rules(["93.184.215.14"]))).toBe("url must be https");
    expect(await endpointUrlProblem("https://shop.example.com/hooks", rules(["93.184.215.14"]))).toBeNull();
    expect(await endpointUrlProblem("https://shop.example.com/hooks", rules(["93.184.215.14", "10.0.0.7"]))).toContain("10.0.0.7");
    expect(await endpointUrlProblem("https://shop.example.com/hooks", rules(["fe80::1"]))).toContain("fe80::1");
    expect(await endpointUrlProblem("https://[::1]/hooks", rules([]))).toContain("::1");
    expect(await endpointUrlProblem("https://shop.example.com/hooks", rules([]))).toBe("url's host name does not resolve");
    const failing = { publicHttpsOnly: true, resolve: async () => Promise.reject(new Error("ENOTFOUND")) };
    expect(await endpointUrlProblem("https://nowhere.invalid/hooks", failing)).toBe("url's host name does not resolve");
    expect(await endpointUrlProblem("ftp://shop.example.com/x", rules(["93.184.215.14"]))).toBe("url must be an http or https URL");
  });
});
