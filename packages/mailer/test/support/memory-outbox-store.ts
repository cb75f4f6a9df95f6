import { fairPick } from "@mteja/shared";
import type { NewOutboxMail, OutboxMail, OutboxStore } from "../../src/index.js";

export interface OutboxRow extends OutboxMail {
  nextAttemptAt: Date;
  sentAt: Date | undefined;
  lastError: string | undefined;
}

/** An in-memory OutboxStore with the semantics the db package implements (fair share, lease on claim). */
export class MemoryOutboxStore implements OutboxStore {
  readonly rows: OutboxRow[] = [];
  readonly calls = { claimDue: 0, markSent: 0, markFailed: 0 };
  private nextId = 1;

  insert(mail: NewOutboxMail, now: Date): OutboxRow {
    const row: OutboxRow = {
      ...mail,
      id: `mail-${this.nextId++}`,
      attempts: 0,
      nextAttemptAt: now,
      sentAt: undefined,
      lastError: undefined,
    };
    this.rows.push(row);
    return row;
  }

  async claimDue(opts: { limit: number; now: Date; leaseMs: number; perTenant?: number }): Promise<OutboxMail[]> {
    this.calls.claimDue++;
    const ready = this.rows
      .filter((row) => row.sentAt === undefined && row.nextAttemptAt.getTime() <= opts.now.getTime())
      .map((row) => ({ id: row.id, tenantId: row.tenantId, dueAt: row.nextAttemptAt, row }));
    const due = fairPick(ready, { limit: opts.limit, perTenant: opts.perTenant ?? opts.limit })
      .map(({ row }) => row)
      .sort((a, b) => a.nextAttemptAt.getTime() - b.nextAttemptAt.getTime());
    for (const row of due) row.nextAttemptAt = new Date(opts.now.getTime() + opts.leaseMs);
    return due.map(({ nextAttemptAt: _n, sentAt: _s, lastError: _l, ...mail }) => ({ ...mail }));
  }

  async markSent(id: string, sentAt: Date): Promise<void> {
    this.calls.markSent++;
    const row = this.row(id);
    row.sentAt ??= sentAt;
  }

  async markFailed(id: string, opts: { error: string; nextAttemptAt: Date; attempts: number }): Promise<void> {
    this.calls.markFailed++;
    const row = this.row(id);
    if (row.sentAt !== undefined) return;
    row.attempts = opts.attempts;
    row.nextAttemptAt = opts.nextAttemptAt;
    row.lastError = opts.error;
  }

  private row(id: string): OutboxRow {
    const row = this.rows.find((candidate) => candidate.id === id);
    if (!row) throw new Error(`No outbox row ${id}`);
    return row;
  }
}
