/**
 * The one seam between the service and a Daraja (docs/mpesa.md#providers): for each use, the Daraja
 * client of @mteja/daraja over HTTP (Safaricom, or the HTTP simulator the dev start runs at the base
 * URL), or the simulated provider of @mteja/simulated-daraja answering in this process, with no HTTP
 * listener and its outcomes in the database (so any instance answers for them). No other module of
 * the service imports a simulator (scripts/dependency-rules.mjs).
 */
import { createDarajaClient, type AccessTokenStore, type DarajaClient } from "@mteja/daraja";
import { simulatedDaraja, type Database } from "@mteja/db";
import type { DarajaAccount, Logger } from "@mteja/domain";
import {
  createDarajaSimulation,
  createSimulatedDarajaClient,
  simulationDefaults,
  type DarajaSimulation,
  type SimulationStore,
  type StoredRecord,
} from "@mteja/simulated-daraja";

/** Whose money a use moves: a live account's, through Daraja, or test mode's, simulated. */
export type DarajaUse = "live" | "test";

export interface DarajaProviders {
  /** The client for `account` in `use`; a test use is the simulation's own account, whatever `account` is. */
  connect(account: DarajaAccount, use: DarajaUse): DarajaClient;
  /** Test mode's client (the simulation's own account): what `connect(any, "test")` gives. */
  simulated(): DarajaClient;
  /** Cancels the simulated callbacks still to come. */
  close(): void;
}

export interface DarajaProvidersOptions {
  /** Where live requests go (MOMO_BASE_URL, or the dev start's simulator). */
  baseUrl: string | undefined;
  timeoutMs: number;
  logger: Logger;
  /** The fetch live clients use (main.ts passes the metrics-instrumented one). */
  fetch?: typeof fetch | undefined;
  /** Where the simulated outcomes are kept. */
  db: Database;
  now: () => Date;
  /** With Redis: the live accounts' access tokens, shared by every instance (runtime/daraja-token-store.ts). */
  tokenStore?: AccessTokenStore | undefined;
}

/** The simulation's memory in the database: simulated money, no tenant's data, hence unscoped. */
function databaseStore(db: Database): SimulationStore {
  const client = db.unscoped("no-tenant-data");
  return {
    add: (record) => simulatedDaraja.insertRecord(client, record),
    put: (record) => simulatedDaraja.saveRecord(client, record),
    // The rows are the records the simulation wrote.
    get: async (kind, id) => (await simulatedDaraja.findRecord(client, kind, id)) as StoredRecord | null,
    find: async (kind, lookup) => (await simulatedDaraja.findRecords(client, kind, lookup)) as StoredRecord[],
    list: async (kind) => (await simulatedDaraja.listRecords(client, kind)) as StoredRecord[],
    addToBalance: (delta, initial) => simulatedDaraja.addToBalance(client, "utility", delta, initial),
    clear: () => simulatedDaraja.clearAll(client),
  };
}

/**
 * Test mode's account is the simulation's (the sandbox's values). Without the simulator's private key
 * a SecurityCredential is only checked to be base64 (docs/daraja-simulator.md#the-provider), so its password's
 * base64 stands for it.
 */
const simulatedAccount = {
  consumerKey: simulationDefaults.consumerKey,
  consumerSecret: simulationDefaults.consumerSecret,
  shortcode: simulationDefaults.shortcode,
  passkey: simulationDefaults.passkey,
  transactionType: "CustomerPayBillOnline",
  b2cShortcode: simulationDefaults.b2cShortcode,
  initiatorName: simulationDefaults.initiatorName,
  securityCredential: Buffer.from(simulationDefaults.initiatorPassword, "utf8").toString("base64"),
} as const;

export function createDarajaProviders(options: DarajaProvidersOptions): DarajaProviders {
  const { logger, now } = options;
  // Built on the first test use: a start without test traffic creates nothing.
  let simulated: { simulation: DarajaSimulation; client: DarajaClient } | undefined;

  function simulatedClient(): DarajaClient {
    if (!simulated) {
      const simulation = createDarajaSimulation({ now }, { store: databaseStore(options.db), logger });
      simulated = { simulation, client: createSimulatedDarajaClient(simulation, { ...simulatedAccount, now, logger }) };
    }
    return simulated.client;
  }

  return {
    connect(account, use) {
      if (use === "test") return simulatedClient();
      if (!options.baseUrl) throw new Error("Daraja client: no base URL (M-Pesa is not configured)");
      return createDarajaClient({
        ...account,
        baseUrl: options.baseUrl,
        timeoutMs: options.timeoutMs,
        logger,
        ...(options.fetch ? { fetch: options.fetch } : {}),
        ...(options.tokenStore ? { tokenStore: options.tokenStore } : {}),
      });
    },
    simulated: simulatedClient,
    close() {
      simulated?.simulation.close();
    },
  };
}
