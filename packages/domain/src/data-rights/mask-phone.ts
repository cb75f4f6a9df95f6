/**
 * A phone number as an erased account's payments keep it: the country code and the last three digits,
 * enough to match a customer's own receipt, not enough to reach them. Already masked values are left as they are.
 */
export function maskPhone(phone: string): string {
  if (phone.includes("*")) return phone;
  const digits = phone.replace(/\D/g, "");
  if (digits.length <= 6) return "*".repeat(digits.length);
  return `${digits.slice(0, 3)}${"*".repeat(digits.length - 6)}${digits.slice(-3)}`;
}
