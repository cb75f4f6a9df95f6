/**
 * The ports a start binds that a setting names: the service's own and those of the dev start's
 * simulators. main.ts checks them before it opens the database, so a start that could not serve has
 * created and migrated nothing.
 */
import type { Settings } from "../settings.js";
import { simulatorHost } from "./dev-simulators.js";
import { googleSimulatorWanted } from "./google.js";
import { darajaSimulatorWanted } from "./payments.js";
import { assertPortFree } from "./port-taken.js";
import { smsSimulatorWanted } from "./sms.js";

export async function assertStartPortsFree(settings: Settings): Promise<void> {
  const named: Array<{ setting: string; host: string; port: number }> = [{ setting: "PORT", host: settings.HOST, port: settings.PORT }];
  if (darajaSimulatorWanted(settings)) named.push({ setting: "SIM_PORT", host: simulatorHost, port: settings.SIM_PORT });
  if (smsSimulatorWanted(settings)) named.push({ setting: "SMS_SIM_PORT", host: simulatorHost, port: settings.SMS_SIM_PORT });
  if (googleSimulatorWanted(settings)) named.push({ setting: "GOOGLE_SIM_PORT", host: simulatorHost, port: settings.GOOGLE_SIM_PORT });
  for (const { setting, host, port } of named) await assertPortFree(setting, host, port);
}
