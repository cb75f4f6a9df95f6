/** A clock the test moves by hand, for token lifetimes and grace windows. */
export function testClock(start = Date.now()) {
  let current = start;
  return {
    now: () => new Date(current),
    advance(seconds: number) {
      current += seconds * 1000;
    },
  };
}
