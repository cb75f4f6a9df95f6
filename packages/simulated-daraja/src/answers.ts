import { newRequestId } from "./wire.js";

/** What Daraja answers a request: an HTTP status and its body (JSON, or "" for OAuth's bare 400). */
export interface DarajaAnswer {
  status: number;
  body: unknown;
}

export type JsonBody = Record<string, unknown>;

export const accepted = (body: JsonBody): DarajaAnswer => ({ status: 200, body });

/** Daraja's synchronous error envelope (docs/daraja-wire-format.md#error-envelope). */
export function darajaError(
  status: number,
  errorCode: string,
  errorMessage: string,
  requestId = newRequestId(),
): DarajaAnswer {
  return { status, body: { requestId, errorCode, errorMessage } };
}

/** Daraja's refusal of a field it could not read (`Bad Request - Invalid Amount`). */
export const invalidField = (field: string): DarajaAnswer =>
  darajaError(400, "400.002.02", `Bad Request - Invalid ${field}`);

export const invalidAccessToken = (): DarajaAnswer => darajaError(404, "404.001.03", "Invalid Access Token");
