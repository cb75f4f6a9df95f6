/**
 * One tenant cannot hold up another's sends (docs/webhooks.md#fairness): the rule by which the leased
 * workers (webhook deliveries, the mail and SMS outboxes) pick what they claim. Each claim is made in
 * SQL (@mteja/db, `repositories/fair-claim.ts`), which locks only the rows it takes; this is the rule
 * stated once in plain code, with the ledger of what an instance has in flight.
 *
 * Of the rows ready to send, oldest due first:
 *  1. an endpoint keeps at most `perEndpoint` rows, those it has in flight counted;
 *  2. a tenant keeps at most `perTenant` rows, those it has in flight counted;
 *  3. the rows kept are taken in turns — every tenant's next row before anyone's row after it (a
 *     tenant with rows in flight is further on in its turns) — up to `limit`, the instance's free slots.
 * So a tenant with a deep backlog takes its share and no more, and one with a single row waits at most
 * for the rows already in flight.
 */

export interface FairShare {
  /** Rows taken at most: the instance's free slots. */
  limit: number;
  /** Rows of one tenant in flight at most, those already in flight included. */
  perTenant: number;
  /** Rows of one endpoint in flight at most (webhook deliveries); no cap when absent. */
  perEndpoint?: number;
}

export interface ReadyRow {
  id: string;
  tenantId: string;
  endpointId?: string;
  dueAt: Date;
}

/** What an instance has in flight, counted per tenant and per endpoint. */
export interface InFlightCounts {
  readonly tenants: ReadonlyMap<string, number>;
  readonly endpoints: ReadonlyMap<string, number>;
}

const nothingInFlight: InFlightCounts = { tenants: new Map(), endpoints: new Map() };

const dueOrder = (a: ReadyRow, b: ReadyRow) => a.dueAt.getTime() - b.dueAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** The rows of `ready` a fair claim takes, in the order it takes them. */
export function fairPick<T extends ReadyRow>(ready: readonly T[], share: FairShare, inFlight: InFlightCounts = nothingInFlight): T[] {
  const keptPerEndpoint = new Map<string, number>();
  const keptPerTenant = new Map<string, number>();
  const kept: { row: T; turn: number }[] = [];
  for (const row of [...ready].sort(dueOrder)) {
    if (share.perEndpoint !== undefined && row.endpointId !== undefined) {
      const endpointKept = keptPerEndpoint.get(row.endpointId) ?? 0;
      if ((inFlight.endpoints.get(row.endpointId) ?? 0) + endpointKept >= share.perEndpoint) continue;
      keptPerEndpoint.set(row.endpointId, endpointKept + 1);
    }
    const rank = (keptPerTenant.get(row.tenantId) ?? 0) + 1;
    keptPerTenant.set(row.tenantId, rank);
    const turn = (inFlight.tenants.get(row.tenantId) ?? 0) + rank;
    if (turn <= share.perTenant) kept.push({ row, turn });
  }
  return kept
    .sort((a, b) => a.turn - b.turn || dueOrder(a.row, b.row))
    .slice(0, Math.max(0, share.limit))
    .map(({ row }) => row);
}

/** "A tenant at most a quarter of an instance's in-flight sends" (the outboxes' share), never less than one. */
export function quarterShare(inFlightCapacity: number): number {
  return Math.max(1, Math.floor(inFlightCapacity / 4));
}

/** What one instance has in flight: counted as each send starts, forgotten as it ends. */
export interface InFlightLedger extends InFlightCounts {
  readonly size: number;
  add(row: { tenantId: string; endpointId?: string }): void;
  remove(row: { tenantId: string; endpointId?: string }): void;
}

export function createInFlightLedger(): InFlightLedger {
  const tenants = new Map<string, number>();
  const endpoints = new Map<string, number>();
  let size = 0;
  const change = (counts: Map<string, number>, key: string, by: number) => {
    const next = (counts.get(key) ?? 0) + by;
    if (next > 0) counts.set(key, next);
    else counts.delete(key);
  };
  return {
    tenants,
    endpoints,
    get size() {
      return size;
    },
    add(row) {
      size += 1;
      change(tenants, row.tenantId, 1);
      if (row.endpointId !== undefined) change(endpoints, row.endpointId, 1);
    },
    remove(row) {
      size = Math.max(0, size - 1);
      change(tenants, row.tenantId, -1);
      if (row.endpointId !== undefined) change(endpoints, row.endpointId, -1);
    },
  };
}
