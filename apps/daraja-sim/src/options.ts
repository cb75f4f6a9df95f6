import type { FastifyServerOptions } from "fastify";
import type { SimulationOptions, SimulationStore } from "@mteja/simulated-daraja";
import type { SimScriptBook } from "./scripts.js";

export type { QueryPendingMode } from "@mteja/simulated-daraja";

export interface DarajaSimulatorOptions extends SimulationOptions {
  /** How many requests/callbacks GET /sim/requests keeps. Default 200. */
  logLimit?: number;
  logger?: FastifyServerOptions["logger"];
  /** Answers scripted by the process that runs the simulator (createSimScripts); none by default. */
  scripts?: SimScriptBook;
  /** Where the simulated outcomes are kept. Default: this process's memory. */
  store?: SimulationStore;
}
