/** Keyset pages on (created_at, id): the where-conditions the repositories' lists share. */

/** Where a keyset page starts: after the row with this time and id. */
export interface PageAfter {
  createdAt: Date;
  id: string;
}

/** Rows after `after` in (created_at, id) order. */
export function laterThan(after: PageAfter) {
  return [{ createdAt: { gt: after.createdAt } }, { createdAt: after.createdAt, id: { gt: after.id } }];
}

/**
 * Rows before `before` in (created_at, id) order, newest first's next page. The `lte` bound repeats what
 * the OR says so that the index is entered at the cursor: PostgreSQL takes no index bound from an OR.
 */
export function olderThan(before: PageAfter) {
  return {
    createdAt: { lte: before.createdAt },
    OR: [{ createdAt: { lt: before.createdAt } }, { createdAt: before.createdAt, id: { lt: before.id } }],
  };
}
