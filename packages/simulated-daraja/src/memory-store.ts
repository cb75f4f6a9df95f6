import type { RecordLookup, SimulationStore, StoredRecord } from "./records.js";

/**
 * A store in this process's memory (the HTTP simulator's, and tests'): records are copied in and out,
 * so a caller holding one sees no change it did not store, as with the database's store.
 */
export function createMemoryStore(): SimulationStore {
  const records = new Map<string, StoredRecord>();
  let balance: number | null = null;
  const keyOf = (kind: string, id: string) => `${kind}\u0000${id}`;
  const matches = (record: StoredRecord, lookup: RecordLookup) =>
    "receipt" in lookup
      ? record.receipt === lookup.receipt
      : "reverses" in lookup
        ? record.reverses === lookup.reverses
        : record.phone === lookup.phone;

  return {
    async add(record) {
      const key = keyOf(record.kind, record.id);
      if (records.has(key)) return false;
      records.set(key, structuredClone(record));
      return true;
    },
    async put(record) {
      const key = keyOf(record.kind, record.id);
      // A replaced record keeps its place: find answers oldest first.
      records.set(key, structuredClone(record));
    },
    async get(kind, id) {
      const record = records.get(keyOf(kind, id));
      return record ? structuredClone(record) : null;
    },
    async find(kind, lookup) {
      return [...records.values()]
        .filter((record) => record.kind === kind && matches(record, lookup))
        .map((record) => structuredClone(record));
    },
    async list(kind) {
      return [...records.values()].filter((record) => record.kind === kind).map((record) => structuredClone(record));
    },
    async addToBalance(delta, initial) {
      balance = Math.round(((balance ?? initial) + delta) * 100) / 100;
      return balance;
    },
    async clear() {
      records.clear();
      balance = null;
    },
  };
}
