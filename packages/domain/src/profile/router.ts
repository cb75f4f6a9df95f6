import { authProcedure, authTokenProcedure, createTRPCRouter } from "../trpc.js";
import { done, ok } from "../shared/envelope.js";
import { noInput, tenantHeaders } from "../shared/fields.js";
import { changePasswordInput, changePasswordOutput, meOutput, updateMeInput, updateMeOutput } from "./schemas.js";
import * as profile from "./service.js";

const tags = ["profile"];

export const profileRouter = createTRPCRouter({
  me: authTokenProcedure
    .meta({
      guestAllowed: true,
      openapi: {
        method: "GET",
        path: "/api/v1/auth/me",
        tags,
        summary: "The signed-in customer",
        requestHeaders: tenantHeaders,
        errorResponses: { 401: "AUTH_REQUIRED or INVALID_TOKEN" },
      },
    })
    .input(noInput)
    .output(meOutput)
    .query(async ({ ctx }) => ok(await profile.getMe(ctx))),

  updateMe: authProcedure
    .meta({
      openapi: {
        method: "PUT",
        path: "/api/v1/auth/me",
        tags,
        summary: "Update name, phone or avatar_url",
        requestHeaders: tenantHeaders,
        errorResponses: { 401: "AUTH_REQUIRED or INVALID_TOKEN", 422: "VALIDATION_ERROR" },
      },
    })
    .input(updateMeInput)
    .output(updateMeOutput)
    .mutation(async ({ ctx, input }) => ok(await profile.updateMe(ctx, input), "Profile updated.")),

  changePassword: authProcedure
    .meta({
      stepUp: { orBodyProof: "current_password" },
      openapi: {
        method: "PUT",
        path: "/api/v1/auth/me/password",
        tags,
        summary: "Change the password (ends every other session)",
        requestHeaders: tenantHeaders,
        errorResponses: {
          401: "INVALID_CREDENTIALS (wrong current password), AUTH_REQUIRED or INVALID_TOKEN",
          422: "VALIDATION_ERROR",
          429: "RATE_LIMITED (too many wrong passwords for the account)",
        },
      },
    })
    .input(changePasswordInput)
    .output(changePasswordOutput)
    .mutation(async ({ ctx, input }) => {
      await profile.changePassword(ctx, input);
      return done("Password changed successfully.");
    }),
});
