/**
 * At start, one warning when shops' C2B still accepts MOMO_CALLBACK_SECRET itself (their URLs were
 * registered before shop tokens and not since): a URL leaked before the upgrade can still fake their C2B
 * payments until the operator registers them again (docs/operations.md#upgrading-to-shop-callback-tokens).
 * `mteja doctor` names them.
 */
import { shopsOnSharedC2bToken, type Deps } from "@mteja/domain";

export async function warnOfSharedC2bTokens(deps: Pick<Deps, "db" | "daraja" | "config" | "logger">): Promise<void> {
  // Without a callback secret no callback is accepted at all.
  if (!deps.daraja.callbackTokens) return;
  const shops = await shopsOnSharedC2bToken(deps.db.unscoped("start-up"), { defaultTenantId: deps.config.defaultTenantId, platformShortcode: deps.daraja.settings.platformShortcode });
  if (shops.length === 0) return;
  deps.logger.warn(
    { shops: shops.length },
    `${shops.length} shop(s) still accept MOMO_CALLBACK_SECRET itself on their C2B URLs: register their C2B URLs again (mteja doctor names them)`,
  );
}
