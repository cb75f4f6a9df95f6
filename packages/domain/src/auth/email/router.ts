import { authProcedure, createTRPCRouter } from "../../trpc.js";
import { done, ok } from "../../shared/envelope.js";
import { tenantHeaders } from "../../shared/fields.js";
import { emailStartInput, emailStartOutput, emailVerifyInput, emailVerifyOutput } from "./schemas.js";
import { startEmailChange, verifyEmailChange } from "./email-change.js";
import { changesEmailOrAddsOneBesideAPassword } from "../step-up/conditions.js";

const tags = ["auth"];

/** The same answer whether or not another account has the address (docs/email.md). */
const startedMessage = "A link to confirm the new address is on its way to it. The address changes once the link is opened.";

export const emailRouter = createTRPCRouter({
  start: authProcedure
    .meta({
      stepUp: { when: changesEmailOrAddsOneBesideAPassword },
      openapi: {
        method: "POST",
        path: "/api/v1/auth/me/email/start",
        tags,
        summary: "Mail a link to confirm a new email address for this account",
        description:
          "The link (`/verify-email?token=…&email=…&change=1` under the shop's app URL) goes to the new address and works once, for 24 hours; a newer start retires it. " +
          "The answer is the same whether or not another account uses the address (that is answered at verify). An account without an email adds its first one this way. " +
          "An address added on a session that was not fresh does not reset the password until it is confirmed: this operation with the account's own address, on a fresh session. " +
          "At most 5 starts per account per hour (429), and 5 links per address per hour (beyond: the same answer, no mail).",
        requestHeaders: tenantHeaders,
        errorResponses: {
          401: "AUTH_REQUIRED or INVALID_TOKEN",
          422: "VALIDATION_ERROR (also: the account's own address, unless it is one that does not reset the password yet)",
          429: "RATE_LIMITED",
        },
      },
    })
    .input(emailStartInput)
    .output(emailStartOutput)
    .mutation(async ({ ctx, input }) => {
      await startEmailChange(ctx, input);
      return done(startedMessage);
    }),

  verify: authProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/api/v1/auth/me/email/verify",
        tags,
        summary: "Switch the account to the new email address with the token of its link",
        description:
          "Only the session that asked (the same sign-in that called start). The address becomes the account's, verified; every other session ends, and the old address and the verified phone are told.",
        requestHeaders: tenantHeaders,
        errorResponses: {
          400: "INVALID_TOKEN (the token is wrong, expired, already used, replaced by a newer start, another account's, or sent here by another session of the account: it stays usable from the one that asked)",
          401: "AUTH_REQUIRED or INVALID_TOKEN",
          409: "EMAIL_IN_USE",
          422: "VALIDATION_ERROR",
        },
      },
    })
    .input(emailVerifyInput)
    .output(emailVerifyOutput)
    .mutation(async ({ ctx, input }) => ok(await verifyEmailChange(ctx, input), "Your email address has been changed.")),
});
