import { addressesRouter } from "./addresses/router.js";
import { apiKeysRouter } from "./api-keys/router.js";
import { authRouter } from "./auth/router.js";
import { dataRightsRouter } from "./data-rights/router.js";
import { intentsRouter } from "./intents/router.js";
import { otpRouter } from "./auth/otp/router.js";
import { flowRouters } from "./payments/flows.js";
import { paymentsRouter } from "./payments/router.js";
import { profileRouter } from "./profile/router.js";
import { reportsRouter } from "./reports/router.js";
import { securityEventsRouter } from "./security-events/router.js";
import { tenantsRouter } from "./tenants/router.js";
import { createTRPCRouter } from "./trpc.js";
import { webhooksRouter } from "./webhooks/router.js";
import { phoneRouter } from "./auth/phone/router.js";
import { emailRouter } from "./auth/email/router.js";
import { googleRouter } from "./auth/google/router.js";
import { passkeysRouter } from "./auth/passkeys/router.js";

/**
 * One router per area of the API, each named for its folder. A key may differ from the area's name: it
 * is the first part of each procedure's path and so of its REST operationId (`admin-createTenant`).
 * The payment flows' routers come from their registry (payments/flows.ts), so a new flow is not named here.
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
  // Each payment flow's own routers, as the flow registry names them (payments/flows.ts).
  ...flowRouters,
  phone: phoneRouter,
  email: emailRouter,
  google: googleRouter,
  passkeys: passkeysRouter,
  securityEvents: securityEventsRouter,
  dataRights: dataRightsRouter,
  reports: reportsRouter,
});

export type AppRouter = typeof appRouter;
