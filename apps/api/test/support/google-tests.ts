/**
 * The one setup of the Google test files: the simulator started before the app (OIDC_GOOGLE_ISSUER is
 * read at start), the app on a frozen TOTP clock, and a shop whose Google client is the simulator's.
 * Call `googleTests` at the file's top level and `hooks()` inside the file's describe:
 *
 *   const google = await googleTests({ STEP_UP_WINDOW_SECONDS: "60" });
 *   describe.skipIf(skipThisTarget)("...", () => {
 *     google.hooks();
 *     it("...", async () => { const answer = await google.client().post(...); });
 */
import type { GoogleSimulator } from "@mteja/google-sim";
import { RestClient, type TestApp } from "./app.js";
import { it } from "./fixture.js";
import { googleShopOn, startSimulatorFirst } from "./google.js";
import { totpClock, type TestClock } from "./two-factor.js";

export interface GoogleShop {
  tenantId: string;
  clientId: string;
}

export interface GoogleTests {
  sim: GoogleSimulator;
  clock: TestClock;
  /** The app, once `hooks()`' beforeAll has run. */
  readonly t: TestApp;
  /** The shop on the simulator, once `hooks()`' beforeAll has run. */
  readonly shop: GoogleShop;
  /** A client of the shop, without cookies. */
  client(): RestClient;
  /** Starts the app and makes the shop before the describe's tests; closes the simulator after them. */
  hooks(): void;
}

export async function googleTests(
  env: Record<string, string> = {},
  shopSettings: Record<string, unknown> = {},
): Promise<GoogleTests> {
  const sim = await startSimulatorFirst();
  const clock = totpClock();
  it.override({ appEnv: { OIDC_GOOGLE_ISSUER: sim.issuer, ...env }, appOptions: { now: clock.now } });
  let started: { t: TestApp; shop: GoogleShop } | undefined;
  const ready = () => {
    if (!started) throw new Error("googleTests: call hooks() inside the describe first");
    return started;
  };
  return {
    sim,
    clock,
    get t() {
      return ready().t;
    },
    get shop() {
      return ready().shop;
    },
    client: () => new RestClient(ready().t.url, ready().shop.tenantId),
    hooks() {
      it.beforeAll(async ({ app }) => {
        started = { t: app, shop: await googleShopOn(app, sim, shopSettings) };
      });
      it.afterAll(() => sim.close());
    },
  };
}
