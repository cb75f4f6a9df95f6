/**
 * The shared shape of the keyset lists (payments, payouts, devices, security events): newest first,
 * filtered by status and a created-at range, keyset-paginated on (created_at, id) with an opaque cursor.
 */
import { DomainError } from "./errors.js";

/** A list request as its schema parses it (`limit` defaulted). */
export interface KeysetListInput<S extends string> {
  status?: S | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
  limit: number;
  cursor?: string | undefined;
}

interface Cursor {
  createdAt: Date;
  id: string;
}

/** What every keyed row has; the cursor is built from the last row of a page. */
export type KeysetRow = Cursor;

/** Where-conditions valid for both Prisma.PaymentWhereInput and Prisma.PayoutWhereInput. */
export interface KeysetWhere {
  status?: string;
  createdAt?: Date | { gte?: Date; lt?: Date; lte?: Date };
  id?: { lt: string };
  OR?: KeysetWhere[];
}

const keysetOrder = [{ createdAt: "desc" }, { id: "desc" }] as const;

function encodeCursor(cursor: Cursor): string {
  return Buffer.from(`${cursor.createdAt.toISOString()}|${cursor.id}`).toString("base64url");
}

/** Exactly what encodeCursor writes: a four-digit year keeps the date inside the database's range. */
const cursorInstant = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const cursorId = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function decodeCursor(text: string): Cursor {
  const [iso = "", id = "", ...rest] = Buffer.from(text, "base64url").toString("utf8").split("|");
  const createdAt = new Date(iso);
  const instantRoundTrips = cursorInstant.test(iso) && !Number.isNaN(createdAt.getTime()) && createdAt.toISOString() === iso;
  if (rest.length > 0 || !instantRoundTrips || !cursorId.test(id)) {
    throw new DomainError("VALIDATION_ERROR", undefined, { details: [{ path: "cursor", message: "detail.cursor_camel" }] });
  }
  return { createdAt, id };
}

/** The status / date-range filter and the "after the cursor" condition of a list request. */
function keysetConditions(input: KeysetListInput<string>): KeysetWhere[] {
  const filter: KeysetWhere = {};
  if (input.status) filter.status = input.status;
  if (input.from || input.to) filter.createdAt = { ...(input.from ? { gte: input.from } : {}), ...(input.to ? { lt: input.to } : {}) };
  const conditions = [filter];
  if (input.cursor) {
    const cursor = decodeCursor(input.cursor);
    // The bound repeats what the OR says so that the index is entered at the cursor: PostgreSQL takes
    // no index bound from an OR, and a page would otherwise be read from the newest row down.
    conditions.push({ createdAt: { lte: cursor.createdAt } });
    conditions.push({ OR: [{ createdAt: { lt: cursor.createdAt } }, { createdAt: cursor.createdAt, id: { lt: cursor.id } }] });
  }
  return conditions;
}

/**
 * Reads one page: `find` gets the list's own scope (tenant, owner) ANDed with the keyset conditions,
 * and fetches one row more than the limit to learn whether a next page exists.
 */
export async function readKeysetPage<Row extends KeysetRow>(
  input: KeysetListInput<string>,
  find: (query: { conditions: KeysetWhere[]; orderBy: typeof keysetOrder; take: number }) => Promise<Row[]>,
): Promise<{ rows: Row[]; nextCursor: string | null }> {
  const rows = await find({ conditions: keysetConditions(input), orderBy: keysetOrder, take: input.limit + 1 });
  const page = rows.slice(0, input.limit);
  const last = page[page.length - 1];
  return { rows: page, nextCursor: rows.length > input.limit && last ? encodeCursor(last) : null };
}
