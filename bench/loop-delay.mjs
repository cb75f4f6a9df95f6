// An event loop's delay as the benchmarks report it: monitorEventLoopDelay's histogram (nanoseconds) as ms.
export function delaySummary(histogram) {
  const ms = (ns) => Number((ns / 1e6).toFixed(2));
  return { p50: ms(histogram.percentile(50)), p99: ms(histogram.percentile(99)), max: ms(histogram.max) };
}
