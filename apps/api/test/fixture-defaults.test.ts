/**
 * The files of a worker share their modules (vitest.config.ts `isolate: false`), and with them the one
 * `it` of support/fixture.ts. A file that sets no fixture options must still get the defaults, not the
 * options a file before it set with `it.override` (once a B2C file inherited `callbacks: false` from
 * the file before it, and waited in vain for its callbacks). support/file-defaults.ts resets them.
 */
import { describe, expect } from "vitest";
import { it } from "./support/fixture.js";

describe("fixture options", () => {
  it("start from the defaults in every file, whatever the file before it overrode", ({ appEnv, appOptions, simOptions, darajaOptions }) => {
    expect({ appEnv, appOptions, simOptions, darajaOptions }).toEqual({ appEnv: {}, appOptions: {}, simOptions: {}, darajaOptions: {} });
  });
});
