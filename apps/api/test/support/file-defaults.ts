/**
 * Run before each API test file (vitest `setupFiles`). The files of a worker share their modules
 * (`isolate: false` in vitest.config.ts), and with them the one `it` of fixture.ts, whose top-level
 * `it.override(...)` replaces the fixtures' options for good: without this, a file that sets no options
 * would start with the options of the file that ran before it in the same worker.
 */
import { it } from "./fixture.js";

it.override({ appEnv: {}, appOptions: {}, simOptions: {}, darajaOptions: {} });
