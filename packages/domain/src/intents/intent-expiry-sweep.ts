/**
 * The reconciler's last step (payments/reconciliation.ts): expires every tenant's payment intents
 * still waiting for payment past expires_at. Reads and payments also expire a tenant's due intents
 * first (transition on read), so this sweep only makes the stored status catch up for intents nobody
 * looks at; one conditional UPDATE, safe in several instances at once.
 */
import type { IntentPorts } from "./ports.js";
import { expireDueIntentsOfAllTenants } from "./intent-expiry.js";

export async function sweepExpiredIntents({ deps }: { deps: IntentPorts }): Promise<void> {
  const expired = await expireDueIntentsOfAllTenants(deps.db, deps.db.unscoped("worker"), deps.clock.now());
  if (expired > 0) deps.logger.info({ expired }, "payment intents expired");
}
