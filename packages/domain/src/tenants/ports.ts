/** What the tenants area (the admin API's shops, settings and roles) needs from the composition root. */
import type { Database } from "@mteja/db";
import type { DomainConfig } from "../shared/config.js";
import type { DataCipher } from "../shared/data-cipher.js";
import type { Clock } from "../shared/ports.js";
import type { TenantDirectory } from "../shared/tenant.js";

export interface TenantPorts {
  db: Database;
  config: DomainConfig;
  clock: Clock;
  /** Shops' Daraja secrets at rest. */
  cipher: DataCipher;
  tenants: TenantDirectory;
}
