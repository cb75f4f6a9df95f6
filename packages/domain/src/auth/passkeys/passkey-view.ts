/** A passkey as the API shows it: never its key, counter or credential id. */
import type { passkeys } from "@mteja/db";

export interface PasskeyView {
  id: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
}

export function toPasskeyView(row: passkeys.Passkey): PasskeyView {
  return { id: row.id, name: row.name, created_at: row.createdAt.toISOString(), last_used_at: row.lastUsedAt?.toISOString() ?? null };
}
