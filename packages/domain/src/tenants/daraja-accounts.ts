/**
 * Whose M-Pesa accounts a tenant's money moves through (docs/mpesa.md "Per-shop M-Pesa").
 *
 * - A tenant with its own STK group (shortcode, consumerKey, consumerSecret, passkey) is paid into its
 *   own short code with its own Daraja app, and never into the platform's: a partial group (only
 *   possible in rows written before the groups were enforced) leaves it without M-Pesa, not on the
 *   platform's credentials.
 * - A tenant without one uses the platform's (the MOMO_* settings), optionally into its own till.
 * - Payouts (B2C) leave from the tenant's own B2C group (b2cShortcode, initiatorName,
 *   securityCredential), through the Daraja app above. Without one, only the default tenant pays out,
 *   from the platform's B2C account; any other tenant has no payout account.
 */
import type { DarajaClient, DarajaClientConfig } from "@mteja/daraja";
import type { Logger } from "../shared/ports.js";
import type { DataCipher } from "../shared/data-cipher.js";
import type { Tenant } from "../shared/tenant.js";
import { revealSecret } from "./daraja-secrets.js";
import { MOMO_CREDENTIAL_GROUPS, type MomoTenantSettings } from "../shared/tenant-settings.js";

/** The credentials part of a Daraja client's configuration. */
export type DarajaAccount = Pick<
  DarajaClientConfig,
  "consumerKey" | "consumerSecret" | "shortcode" | "passkey" | "transactionType" | "partyB" | "b2cShortcode" | "initiatorName" | "securityCredential"
>;

/** The platform's own account (the MOMO_* settings, or the dev start's simulator). */
export interface PlatformDarajaAccount {
  consumerKey: string;
  consumerSecret: string;
  shortcode: string;
  passkey: string;
  transactionType: DarajaClientConfig["transactionType"];
  tillNumber: string | undefined;
  b2c: { shortcode: string; initiatorName: string; securityCredential: string } | undefined;
}

export interface AccountRules {
  platform: PlatformDarajaAccount;
  defaultTenantId: string;
  /** Turns a stored secret into the secret itself. */
  reveal(stored: string): string;
}

type Group = keyof typeof MOMO_CREDENTIAL_GROUPS;

function groupState(momo: MomoTenantSettings, group: Group): "absent" | "partial" | "complete" {
  const present = MOMO_CREDENTIAL_GROUPS[group].filter((field) => momo[field] !== undefined).length;
  return present === 0 ? "absent" : present === MOMO_CREDENTIAL_GROUPS[group].length ? "complete" : "partial";
}

/** The account a tenant's payments and payouts use; null when it has none it may use. */
export function darajaAccountFor(tenant: Pick<Tenant, "id" | "settings">, rules: AccountRules): DarajaAccount | null {
  const { platform, reveal } = rules;
  const own = tenant.settings.momo ?? {};
  const stk = groupState(own, "stk");
  if (stk === "partial") return null;
  const account: DarajaAccount =
    stk === "complete"
      ? {
          consumerKey: own.consumerKey!,
          consumerSecret: reveal(own.consumerSecret!),
          shortcode: own.shortcode!,
          passkey: reveal(own.passkey!),
          transactionType: own.transactionType ?? "CustomerPayBillOnline",
          ...(own.tillNumber ? { partyB: own.tillNumber } : {}),
        }
      : {
          consumerKey: platform.consumerKey,
          consumerSecret: platform.consumerSecret,
          shortcode: platform.shortcode,
          passkey: platform.passkey,
          transactionType: own.transactionType ?? platform.transactionType,
          ...((own.tillNumber ?? platform.tillNumber) ? { partyB: (own.tillNumber ?? platform.tillNumber)! } : {}),
        };
  const payout = payoutAccountFor(tenant, rules);
  return payout ? { ...account, ...payout } : account;
}

function payoutAccountFor(tenant: Pick<Tenant, "id" | "settings">, rules: AccountRules): Pick<DarajaAccount, "b2cShortcode" | "initiatorName" | "securityCredential"> | null {
  const own = tenant.settings.momo ?? {};
  const b2c = groupState(own, "b2c");
  if (b2c === "complete") {
    return { b2cShortcode: own.b2cShortcode!, initiatorName: own.initiatorName!, securityCredential: rules.reveal(own.securityCredential!) };
  }
  const platform = rules.platform.b2c;
  if (b2c === "absent" && tenant.id === rules.defaultTenantId && platform) {
    return { b2cShortcode: platform.shortcode, initiatorName: platform.initiatorName, securityCredential: platform.securityCredential };
  }
  return null;
}

export interface DarajaAccounts {
  /**
   * The Daraja client for a tenant's account, for live money; for test money (`of.livemode` false) the
   * simulated provider, whatever the tenant's account (docs/test-mode.md). Null when M-Pesa is not
   * configured, or, for live money, when the tenant has no usable account.
   */
  darajaFor(tenant: Pick<Tenant, "id" | "settings">, of: { livemode: boolean }): DarajaClient | null;
  /** Whether the tenant has an account to pay out from (its own B2C group, or the platform's for the default tenant). */
  hasPayoutAccount(tenant: Pick<Tenant, "id" | "settings">): boolean;
}

export interface DarajaAccountsOptions {
  /** Undefined: M-Pesa is not configured. */
  platform: PlatformDarajaAccount | undefined;
  defaultTenantId: string;
  cipher: DataCipher;
  /** Builds a client for an account (the composition root adds base URL, time-outs, fetch). */
  connect(account: DarajaAccount): DarajaClient;
  /** The simulated provider's client, which answers every test-mode request (never Daraja). */
  simulated(): DarajaClient;
  logger: Logger;
}

/** One Daraja client per distinct account (each caches its own OAuth token). */
export function createDarajaAccounts(options: DarajaAccountsOptions): DarajaAccounts {
  const clients = new Map<string, DarajaClient>();
  const accountFor = (tenant: Pick<Tenant, "id" | "settings">): DarajaAccount | null => {
    if (!options.platform) return null;
    try {
      return darajaAccountFor(tenant, { platform: options.platform, defaultTenantId: options.defaultTenantId, reveal: (stored) => revealSecret(options.cipher, stored) });
    } catch (error) {
      options.logger.error({ err: error, tenantId: tenant.id }, "a tenant's stored M-Pesa secret does not decrypt (was DATA_ENCRYPTION_KEY changed?)");
      return null;
    }
  };
  return {
    darajaFor(tenant, of) {
      // Test money never reaches Daraja, whoever's account the shop has (docs/test-mode.md).
      if (!of.livemode) return options.platform ? options.simulated() : null;
      const account = accountFor(tenant);
      if (!account) return null;
      const key = JSON.stringify(account);
      let client = clients.get(key);
      if (!client) {
        client = options.connect(account);
        if (clients.size > 1000) clients.clear();
        clients.set(key, client);
      }
      return client;
    },
    hasPayoutAccount(tenant) {
      return accountFor(tenant)?.b2cShortcode !== undefined;
    },
  };
}
