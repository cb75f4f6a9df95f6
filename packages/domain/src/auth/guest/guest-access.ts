/**
 * What a guest may call (docs/sign-in.md#guest-checkout): the operations that declare `guestAllowed`
 * on their procedure. Every other operation with a bearer credential answers 403 FORBIDDEN to a guest's
 * token. Checked by the bearer builders of trpc.ts, on the token's role (a guest that upgraded gets a
 * new token; its old one stays a guest's until it expires).
 */
import { DomainError } from "../../shared/errors.js";
import type { OperationMeta } from "../../shared/operation-meta.js";
import type { AccessClaims } from "../../shared/request-context.js";
import { isGuestRole } from "./roles.js";

export function assertGuestMayCall(auth: AccessClaims, meta: OperationMeta | undefined): void {
  if (isGuestRole(auth.role) && meta?.guestAllowed !== true) throw new DomainError("FORBIDDEN", "guest.not_allowed");
}
