/**
 * Run before each API test file (vitest `setupFiles`). The files of a worker share their modules
 * (`isolate: false` in vitest.config.ts), and with them the one `it` of fixture.ts, whose top-level
 * `it.override(...)` replaces the fixtures' options for good: without this, a file that sets no options
 * would start with the options of the file that ran before it in the same worker.
 *
 * It also keeps every test on loopback (network-guard.ts): a connection off it is refused, and the
 * test that made it fails here.
 */
import { afterEach } from "vitest";
import { it } from "./fixture.js";
import { installNetworkGuard, takeOffLoopbackAttempts } from "./network-guard.js";

it.override({ appEnv: {}, appOptions: {}, simOptions: {}, darajaOptions: {} });

installNetworkGuard();
afterEach(() => {
  const attempts = takeOffLoopbackAttempts();
  if (attempts.length > 0) throw new Error(`this test tried to reach an address off loopback: ${attempts.join(", ")}`);
});
