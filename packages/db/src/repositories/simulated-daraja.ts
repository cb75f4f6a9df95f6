/**
 * The simulated Daraja's memory (`simulated_daraja_records`, `simulated_daraja_balances`): what test
 * mode's provider decided for each request, kept so any instance answers for it. Not tenant data, so
 * on the unscoped client only. The record's shape is the provider's (@mteja/simulated-daraja), restated
 * here structurally so this package does not depend on it; its `data` is stored as it is given.
 */
import type { Prisma } from "../generated/prisma/client.js";
import type { UnscopedDb } from "../doors.js";

type Client = UnscopedDb | Prisma.TransactionClient;

export interface SimulatedRecord {
  kind: string;
  /** Daraja's id for it (CheckoutRequestID, OriginatorConversationID, TransID, short code). */
  id: string;
  receipt: string | null;
  reverses: string | null;
  phone: string | null;
  data: unknown;
}

export type SimulatedRecordLookup = { receipt: string } | { reverses: string } | { phone: string };

interface Row {
  kind: string;
  darajaId: string;
  receipt: string | null;
  reverses: string | null;
  phone: string | null;
  data: unknown;
}

const toRecord = (row: Row): SimulatedRecord => ({
  kind: row.kind,
  id: row.darajaId,
  receipt: row.receipt,
  reverses: row.reverses,
  phone: row.phone,
  data: row.data,
});

const columns = (record: SimulatedRecord) => ({
  receipt: record.receipt,
  reverses: record.reverses,
  phone: record.phone,
  data: record.data as Prisma.InputJsonValue,
});

/** Inserts a record unless its kind already has one with its id; true when it was inserted. */
export async function insertRecord(client: Client, record: SimulatedRecord): Promise<boolean> {
  const { count } = await client.simulatedDarajaRecord.createMany({
    data: [{ kind: record.kind, darajaId: record.id, ...columns(record) }],
    skipDuplicates: true,
  });
  return count === 1;
}

/** Inserts a record or replaces the one of its kind with its id. */
export async function saveRecord(client: Client, record: SimulatedRecord): Promise<void> {
  await client.simulatedDarajaRecord.upsert({
    where: { kind_darajaId: { kind: record.kind, darajaId: record.id } },
    create: { kind: record.kind, darajaId: record.id, ...columns(record) },
    update: columns(record),
  });
}

export async function findRecord(client: Client, kind: string, id: string): Promise<SimulatedRecord | null> {
  const row = await client.simulatedDarajaRecord.findUnique({ where: { kind_darajaId: { kind, darajaId: id } } });
  return row && toRecord(row);
}

/** The records of a kind with the given receipt, reversed receipt or phone, oldest first. */
export async function findRecords(
  client: Client,
  kind: string,
  lookup: SimulatedRecordLookup,
): Promise<SimulatedRecord[]> {
  const rows = await client.simulatedDarajaRecord.findMany({
    where: { kind, ...lookup },
    orderBy: { createdAt: "asc" },
  });
  return rows.map(toRecord);
}

/** Every record of a kind, oldest first. */
export async function listRecords(client: Client, kind: string): Promise<SimulatedRecord[]> {
  const rows = await client.simulatedDarajaRecord.findMany({ where: { kind }, orderBy: { createdAt: "asc" } });
  return rows.map(toRecord);
}

/** Adds `delta` to an account's balance (`initial` before its first change) and returns the new balance. */
export async function addToBalance(client: Client, account: string, delta: number, initial: number): Promise<number> {
  const cents = (amount: number) => BigInt(Math.round(amount * 100));
  const row = await client.simulatedDarajaBalance.upsert({
    where: { account },
    create: { account, amountCents: cents(initial + delta) },
    update: { amountCents: { increment: cents(delta) } },
  });
  return Number(row.amountCents) / 100;
}

/** Forgets every record and balance. */
export async function clearAll(client: Client): Promise<void> {
  await client.simulatedDarajaRecord.deleteMany({});
  await client.simulatedDarajaBalance.deleteMany({});
}
