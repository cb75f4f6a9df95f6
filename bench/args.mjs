// The benchmarks' command-line options: `--name value` pairs into an object (a flag without a value is "undefined").
export const args = Object.fromEntries(
  process.argv.slice(2).reduce((pairs, arg, i, all) => (arg.startsWith("--") ? [...pairs, [arg.slice(2), all[i + 1]]] : pairs), []),
);
