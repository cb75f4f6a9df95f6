/** A random source that always draws the lowest value: backoff delays are then exactly exponential. */
export const noJitter = { int: () => 0 };
