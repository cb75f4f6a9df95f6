/**
 * The one setup of the API tests, as vitest fixtures scoped to the file: a file names what it needs
 * (`app`, `smsApp`, `momo`, `sim`) in a hook or a test, and gets it started once, on its own database, and
 * closed after its last test. A file sets the options of its fixtures once, at its top level:
 *
 *   const clock = testClock();
 *   it.override({ appOptions: { now: clock.now } });
 *   describe.skipIf(skipThisTarget)("...", () => {
 *     let t: TestApp;
 *     it.beforeAll(({ app }) => { t = app; });
 *
 * `launch` starts further instances on demand (a second service, a second simulator, a restart) and
 * closes them at the end, the last started first.
 */
import { test as base } from "vitest";
import { startTestApp, type TestApp, type TestAppOptions } from "./app.js";
import { startDarajaApp, type DarajaApp, type DarajaAppOptions } from "./daraja.js";
import { startSimulator, type Simulator } from "./simulator.js";
import { startSmsApp, type SmsApp } from "./sms.js";

/** The momo app's options; `b2c: true` pays out with the simulator's SecurityCredential. */
export type DarajaOptions = Omit<DarajaAppOptions, "darajaUrl" | "b2c"> & { b2c?: boolean };
export type SimulatorOptions = NonNullable<Parameters<typeof startSimulator>[0]>;

export interface Launcher {
  app(env?: Record<string, string>, options?: TestAppOptions): Promise<TestApp>;
  smsApp(env?: Record<string, string>, options?: TestAppOptions): Promise<SmsApp>;
  momo(options: DarajaAppOptions): Promise<DarajaApp>;
  sim(options?: SimulatorOptions): Promise<Simulator>;
}

export const test = base
  .extend("appEnv", { scope: "file" }, {} as Record<string, string>)
  .extend("appOptions", { scope: "file" }, {} as TestAppOptions)
  .extend("simOptions", { scope: "file" }, {} as SimulatorOptions)
  .extend("darajaOptions", { scope: "file" }, {} as DarajaOptions)
  .extend("sim", { scope: "file" }, async ({ simOptions }, { onCleanup }): Promise<Simulator> => {
    const sim = await startSimulator(simOptions);
    onCleanup(() => sim.close());
    return sim;
  })
  .extend("launch", { scope: "file" }, async ({}, { onCleanup }): Promise<Launcher> => {
    const started: { close(): Promise<void> }[] = [];
    onCleanup(async () => {
      for (const instance of started.reverse()) await instance.close();
    });
    const kept = <T extends { close(): Promise<void> }>(instance: T) => (started.push(instance), instance);
    return {
      app: async (env = {}, options = {}) => kept(await startTestApp(env, options)),
      smsApp: async (env = {}, options = {}) => kept(await startSmsApp(env, options)),
      momo: async (options) => kept(await startDarajaApp(options)),
      sim: async (options = {}) => kept(await startSimulator(options)),
    };
  })
  .extend("app", { scope: "file" }, async ({ appEnv, appOptions, launch }): Promise<TestApp> => launch.app(appEnv, appOptions))
  // The service texting through an SMS simulator of its own (support/sms.ts), with the same options as `app`.
  .extend("smsApp", { scope: "file" }, async ({ appEnv, appOptions, launch }): Promise<SmsApp> => launch.smsApp(appEnv, appOptions))
  // Closed before the simulator it calls (fixtures are torn down in the reverse order of their set-up).
  .extend("momo", { scope: "file" }, async ({ sim, darajaOptions }, { onCleanup }): Promise<DarajaApp> => {
    const { b2c, ...options } = darajaOptions;
    const momo = await startDarajaApp({ ...options, darajaUrl: sim.url, ...(b2c ? { b2c: { securityCredential: sim.securityCredential } } : {}) });
    onCleanup(() => momo.close());
    return momo;
  });

export const it = test;
