/**
 * The roles of a guest checkout (docs/sign-in.md#guest-checkout), stored in `users.role` and carried
 * in the access token: a guest's account is "guest" until it upgrades in place, then "customer" (a
 * customer as any other, whose role says it started as a guest; null is a customer that did not).
 */
export const guestRole = "guest";
export const upgradedGuestRole = "customer";

export function isGuestRole(role: string | null | undefined): boolean {
  return role === guestRole;
}
