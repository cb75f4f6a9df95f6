/**
 * The flow registry (payments/flows.ts, docs/mpesa.md#the-flow-registry) is the one place a payment flow
 * is named: the API's routers take each flow's from it, and a flow's own messages are held to the
 * catalogue's rules here (packages/i18n/test/catalogue.test.ts holds the catalogue's).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { LOCALES } from "@mteja/i18n";
import { describe, expect, it } from "vitest";
import { darajaFlows, flowRouters } from "../../src/payments/flows.js";
import { appRouter } from "../../src/router.js";
import { srcDir } from "../support/source-files.js";

const routersOf = (flow: (typeof darajaFlows)[number]) => ("routers" in flow ? Object.entries(flow.routers) : []);

describe("the flow registry", () => {
  it("gives the API each flow's routers, under their own keys, none taken twice", () => {
    const keys = darajaFlows.flatMap((flow) => routersOf(flow).map(([key]) => key));
    expect(new Set(keys).size).toBe(keys.length);
    expect(Object.keys(flowRouters)).toEqual(keys);
    const procedures = appRouter._def.procedures as Record<string, unknown>;
    for (const flow of darajaFlows) {
      for (const [key, router] of routersOf(flow)) {
        const own = Object.entries(router._def.procedures as Record<string, unknown>);
        expect(own.length, `${flow.name}: ${key}`).toBeGreaterThan(0);
        for (const [path, procedure] of own) expect(procedures[`${key}.${path}`], `${key}.${path}`).toBe(procedure);
      }
    }
  });

  it("is the only file outside a flow's folder that names the flow's routers", () => {
    const root = readFileSync(join(srcDir, "router.ts"), "utf8");
    for (const flow of darajaFlows) expect(root, flow.name).not.toContain(`./payments/${flow.name}/`);
  });

  it("holds each flow's own messages to the catalogue's rules: both languages, translated, no placeholders", () => {
    const messages = darajaFlows.flatMap((flow) =>
      Object.entries("messages" in flow ? flow.messages : {}).map(([name, text]) => ({
        name: `${flow.name}.${name}`,
        text,
      })),
    );
    expect(messages.length).toBeGreaterThan(0);
    for (const { name, text } of messages) {
      expect(Object.keys(text.own).sort(), name).toEqual([...LOCALES].sort());
      for (const locale of LOCALES) {
        expect(text.own[locale].trim(), `${name}.${locale}`).not.toBe("");
        expect(text.own[locale], `${name}.${locale}`).not.toMatch(/[{}]/);
      }
      expect(text.own.sw, name).not.toBe(text.own.en);
    }
  });
});
