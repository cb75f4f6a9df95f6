import type { AppRouter } from "@mteja/domain";
import { generateOpenApiDocument, type OpenAPIObject } from "trpc-to-openapi";
import { describeOperations } from "./docs.js";
import { momoCallbackOpenApiPaths } from "./momo-callbacks.js";

/** The OpenAPI 3 document of every REST operation, generated from the procedures' zod schemas. */
export function buildOpenApiDocument(router: AppRouter, baseUrl: string): OpenAPIObject {
  const document = generateOpenApiDocument(router, {
    title: "Mteja API",
    description:
      "Customer accounts, delivery addresses and M-Pesa payments for Kenyan online shops. " +
      "Success bodies are `{ success: true, data, message }`; errors are `{ success: false, message, error: { code, details } }`. " +
      "The auth API requires the `X-Tenant-ID` header.",
    version: "1.0.0",
    baseUrl,
    // Daraja's callbacks are plain routes (their bodies are Daraja's), documented here by hand.
    paths: momoCallbackOpenApiPaths() as never,
    securitySchemes: {
      Authorization: { type: "http", scheme: "bearer", bearerFormat: "JWT", description: "Access token (ES256 JWT) from login, register, refresh or otp/validate." },
      refreshCookie: { type: "apiKey", in: "cookie", name: "refresh_token" },
    },
  });
  // Per-operation security (public, bearer, refresh cookie, admin key), the error envelope, DELETE bodies.
  return describeOperations(document, router);
}
