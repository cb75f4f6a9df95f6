import type { AppRouter } from "@mteja/domain";
import { generateOpenApiDocument, type OpenAPIObject } from "trpc-to-openapi";

/** The OpenAPI 3 document of every REST operation, generated from the procedures' zod schemas. */
export function buildOpenApiDocument(router: AppRouter, baseUrl: string): OpenAPIObject {
  return generateOpenApiDocument(router, {
    title: "Mteja API",
    description:
      "Customer accounts, delivery addresses and M-Pesa payments for Kenyan online shops. " +
      "Success bodies are `{ success: true, data, message }`; errors are `{ success: false, message, error: { code, details } }`. " +
      "The auth API requires the `X-Tenant-ID` header.",
    version: "1.0.0",
    baseUrl,
    securitySchemes: {
      Authorization: { type: "http", scheme: "bearer", bearerFormat: "JWT", description: "Access token (ES256 JWT) from login, register, refresh or otp/validate." },
    },
  });
}
