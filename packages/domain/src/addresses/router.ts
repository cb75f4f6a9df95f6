import { z } from "zod";
import { ok } from "../shared/envelope.js";
import { createTRPCRouter, protectedProcedure, publicProcedure } from "../trpc.js";
import { noInput } from "../shared/fields.js";
import { counties } from "./counties.js";
import {
  addressIdInput,
  addressOutput,
  countiesOutput,
  createAddressInput,
  listAddressesOutput,
  removeAddressOutput,
  setDefaultOutput,
  updateAddressInput,
} from "./schemas.js";
import * as addresses from "./service.js";

const tags = ["addresses"];

/** The tenant comes from the access token; X-Tenant-ID may be sent and must then match (docs/tenants.md#x-tenant-id). */
const optionalTenantHeader = z.object({
  "x-tenant-id": z.string().optional().describe("Optional; when sent it must be the access token's tenant."),
});

const authErrors = { 401: "AUTH_REQUIRED or INVALID_TOKEN" };
const withId = { ...authErrors, 404: "NOT_FOUND (no such address, or another customer's)" };

export const addressesRouter = createTRPCRouter({
  // Declared before the {id} routes so its path never reads as an address id.
  counties: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/api/v1/addresses/counties",
        tags,
        summary: "The 47 counties of Kenya (code, name and the canonical form addresses store)",
      },
    })
    .input(noInput)
    .output(countiesOutput)
    .query(() => ok({ counties: [...counties] })),

  list: protectedProcedure
    .meta({
      guestAllowed: true,
      openapi: {
        method: "GET",
        path: "/api/v1/addresses",
        tags,
        summary: "The customer's addresses (default first, then newest first)",
        requestHeaders: optionalTenantHeader,
        errorResponses: authErrors,
      },
    })
    .input(noInput)
    .output(listAddressesOutput)
    .query(async ({ ctx }) => ok(await addresses.listAddresses(ctx))),

  create: protectedProcedure
    .meta({
      guestAllowed: true,
      successStatus: 201,
      openapi: {
        method: "POST",
        path: "/api/v1/addresses",
        tags,
        summary: "Add an address (the first one becomes the default)",
        requestHeaders: optionalTenantHeader,
        errorResponses: { ...authErrors, 422: "VALIDATION_ERROR (including the 50-address limit)" },
      },
    })
    .input(createAddressInput)
    .output(addressOutput)
    .mutation(async ({ ctx, input }) => ok(await addresses.createAddress(ctx, input), "Address created.")),

  update: protectedProcedure
    .meta({
      guestAllowed: true,
      openapi: {
        method: "PUT",
        path: "/api/v1/addresses/{id}",
        tags,
        summary: "Replace an address's fields",
        requestHeaders: optionalTenantHeader,
        errorResponses: { ...withId, 422: "VALIDATION_ERROR" },
      },
    })
    .input(updateAddressInput)
    .output(addressOutput)
    .mutation(async ({ ctx, input }) => {
      const { id, ...fields } = input;
      return ok(await addresses.updateAddress(ctx, id, fields), "Address updated.");
    }),

  remove: protectedProcedure
    .meta({
      guestAllowed: true,
      openapi: {
        method: "DELETE",
        path: "/api/v1/addresses/{id}",
        tags,
        summary: "Delete an address (deleting the default promotes the most recent remaining one)",
        requestHeaders: optionalTenantHeader,
        errorResponses: withId,
      },
    })
    .input(addressIdInput)
    .output(removeAddressOutput)
    .mutation(async ({ ctx, input }) => {
      await addresses.removeAddress(ctx, input.id);
      return ok(null, "Address deleted.");
    }),

  setDefault: protectedProcedure
    .meta({
      guestAllowed: true,
      openapi: {
        method: "PATCH",
        path: "/api/v1/addresses/{id}/default",
        tags,
        summary: "Make an address the default (clears is_default on every other)",
        requestHeaders: optionalTenantHeader,
        errorResponses: withId,
      },
    })
    .input(addressIdInput)
    .output(setDefaultOutput)
    .mutation(async ({ ctx, input }) => ok(await addresses.setDefaultAddress(ctx, input.id), "Default address updated.")),
});
