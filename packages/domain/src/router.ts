import { addressesRouter } from "./addresses/router.js";
import { apiKeysRouter } from "./api-keys/router.js";
import { authRouter } from "./auth/router.js";
import { dataRightsRouter } from "./data-rights/router.js";
import { intentsRouter } from "./intents/router.js";
import { otpRouter } from "./auth/otp/router.js";
import { balanceRouter } from "./payments/balance/router.js";
import { c2bRouter } from "./payments/c2b/router.js";
import { pullRouter } from "./payments/pull/router.js";
import { qrRouter } from "./payments/qr/router.js";
import { paymentsRouter } from "./payments/router.js";
import { refundsRouter, reversalsRouter } from "./payments/refunds/router.js";
import { profileRouter } from "./profile/router.js";
import { reportsRouter } from "./reports/router.js";
import { securityEventsRouter } from "./security-events/router.js";
import { tenantsRouter } from "./tenants/router.js";
import { createTRPCRouter } from "./trpc.js";
import { webhooksRouter } from "./webhooks/router.js";
import { phoneRouter } from "./auth/phone/router.js";
import { emailRouter } from "./auth/email/router.js";
import { googleRouter } from "./auth/google/router.js";

/**
 * One router per area of the API, each named for its folder. A key may differ from the area's name: it
 * is the first part of each procedure's path and so of its REST operationId (`admin-createTenant`).
 */
export const appRouter = createTRPCRouter({
  auth: authRouter,
  otp: otpRouter,
  profile: profileRouter,
  admin: tenantsRouter,
  addresses: addressesRouter,
  payments: paymentsRouter,
  apiKeys: apiKeysRouter,
  paymentIntents: intentsRouter,
  webhooks: webhooksRouter,
  reversals: reversalsRouter,
  refunds: refundsRouter,
  c2b: c2bRouter,
  balance: balanceRouter,
  pull: pullRouter,
  qr: qrRouter,
  phone: phoneRouter,
  email: emailRouter,
  google: googleRouter,
  securityEvents: securityEventsRouter,
  dataRights: dataRightsRouter,
  reports: reportsRouter,
});

export type AppRouter = typeof appRouter;
