/**
 * Africa's Talking's delivery reports (docs/sms.md#delivery-reports): a form-encoded POST per status
 * change of a sent text. Several may arrive per message, out of order; a final status is never left.
 */
export interface DeliveryReport {
  /** The `messageId` of the send answer. */
  id: string;
  status: string;
  phoneNumber: string | null;
  networkCode: string | null;
  failureReason: string | null;
}

/** Statuses Africa's Talking documents as final. */
const FINAL = new Set(["success", "failed", "rejected"]);
/** The order intermediate statuses come in; a report never moves a text back along it. */
const RANK: Record<string, number> = { sent: 1, submitted: 2, buffered: 3, absentsubscriber: 4, expired: 5 };

export function parseDeliveryReport(body: string): DeliveryReport | undefined {
  const form = new URLSearchParams(body);
  const id = form.get("id")?.trim();
  const status = form.get("status")?.trim();
  if (!id || !status || id.length > 100 || status.length > 40) return undefined;
  const optional = (name: string, max: number) => {
    const value = form.get(name)?.trim();
    return value ? value.slice(0, max) : null;
  };
  return { id, status, phoneNumber: optional("phoneNumber", 20), networkCode: optional("networkCode", 10), failureReason: optional("failureReason", 60) };
}

export function isFinalDeliveryStatus(status: string): boolean {
  return FINAL.has(status.toLowerCase());
}

/** Whether a report with status `next` may replace the stored `current` one (null: none yet). */
export function deliveryStatusAdvances(current: string | null, next: string): boolean {
  if (current === null) return true;
  if (isFinalDeliveryStatus(current)) return false;
  if (isFinalDeliveryStatus(next)) return true;
  return (RANK[next.toLowerCase()] ?? 0) > (RANK[current.toLowerCase()] ?? 0);
}
