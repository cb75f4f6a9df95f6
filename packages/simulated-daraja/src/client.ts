import { createDarajaClientOver, type DarajaClient, type DarajaProtocolConfig } from "@mteja/daraja";
import type { DarajaSimulation } from "./simulation.js";
import { inProcessTransport } from "./transport.js";

/**
 * The simulated provider: a Daraja client (the interface the domain uses) whose requests the
 * simulation answers in this process, with no HTTP listener. The account is checked as Daraja
 * checks it (consumer key and secret, short code, passkey, initiator), against the simulation's own.
 */
export function createSimulatedDarajaClient(simulation: DarajaSimulation, account: DarajaProtocolConfig): DarajaClient {
  return createDarajaClientOver(inProcessTransport(simulation), account);
}
