/**
 * How long security events are kept (SECURITY_EVENTS_RETENTION_DAYS): what a pruning job needs to
 * delete the old ones (docs/security-events.md#retention). Failed sign-ins are only recorded for
 * existing accounts, and each account's failures are capped by the sign-in limit (10 per 15 minutes),
 * so with this retention the table cannot grow without bound.
 */
export const securityEventsTable = { table: "security_events", createdAtColumn: "created_at" } as const;

export const defaultSecurityEventRetentionDays = 365;
