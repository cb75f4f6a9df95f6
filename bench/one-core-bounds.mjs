// What scheduling alone can give the mix on the server's one core, from a stretch's own figures: the two
// extreme policies of M/G/1 with preemptive-resume priority (Kleinrock), the event loop (reads) and the
// hashes as the two classes. For arrivals as random as many independent clients' (Poisson) each figure is a
// lower bound on a mean, as only the hashes' residual work is counted; the bench's evenly spaced arrivals
// queue somewhat less, so there they are estimates. A p99 sits above its mean. Every other policy (nice
// values, slices, shares) lies between the two: it gives logins less than "reads first" does only by making
// reads wait longer than they do there. How far every policy can go is bound by the core's unfinished work,
// the same whatever the order (below).

/**
 * @param {{ loginsPerSecond: number, hashMs: number, busy: number, hashGoalMs?: number, readGoalMs?: number }} stretch logins a second, the CPU of
 *   one login's hash in ms, and how busy the core was (0–1: the loop, the hashes and whatever else ran there);
 *   with both goals (the longest a login, a read may take at p99), also `goalRoom`.
 * @returns {{ hashShare: number, readsFirstHashMs: number, hashesFirstReadWaitMs: number, goalRoom?: number } | undefined}
 *   undefined where the core was saturated or the figures disagree (the hashes alone above `busy`).
 */
export function oneCoreBounds({ loginsPerSecond, hashMs, busy, hashGoalMs, readGoalMs }) {
  const hashShare = (loginsPerSecond * hashMs) / 1000;
  const readShare = busy - hashShare;
  if (!(busy < 1) || readShare < 0 || !(hashMs > 0)) return undefined;
  // The mean work left of a hash in progress, as an arriving request finds it: λ·E[S²]/2, in ms.
  const residualMs = ((loginsPerSecond / 1000) * hashMs ** 2) / 2;
  return {
    hashShare,
    // Reads first: a hash runs only while the loop does not, behind the hashes before it.
    readsFirstHashMs: hashMs / (1 - readShare) + residualMs / ((1 - readShare) * (1 - busy)),
    // Hashes first: every read waits for the hashes in progress and those that arrive while it waits.
    hashesFirstReadWaitMs: residualMs / ((1 - hashShare) * (1 - busy)),
    // Any policy: the unfinished work averages λ·E[S²]/(2(1−ρ)) whatever the order, and a job holds at most
    // its own size of it while it is there, so Σ ρ·(mean time there) ≥ that. Means at the goals/k meet it
    // only for k ≤ goalRoom: both goals hold only if each kind's p99 is within goalRoom× its mean.
    ...(hashGoalMs !== undefined && readGoalMs !== undefined
      ? { goalRoom: (hashShare * hashGoalMs + readShare * readGoalMs) / (residualMs / (1 - busy)) }
      : {}),
  };
}
