import { simulationDefaults } from "@mteja/simulated-daraja";

export const SIM_DEFAULT_PORT = 4010;
export const SIM_DEFAULT_HOST = "127.0.0.1";

/** The simulated account (the sandbox's values) and where the HTTP simulator listens. */
export const simulatorDefaults = { ...simulationDefaults, port: SIM_DEFAULT_PORT, host: SIM_DEFAULT_HOST } as const;
