export { buildServer, loggerOptions } from "./server.js";
export { createServices, type Services, type ServiceOverrides } from "./runtime/services.js";
export { readSettings, type Settings } from "./settings.js";
export { createMetrics, type Metrics } from "./http/metrics.js";
export { createShutdown } from "./runtime/shutdown.js";
