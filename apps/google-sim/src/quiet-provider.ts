/**
 * oidc-provider without its runtime notice: version 9 warns when it is imported on a Node.js LTS before
 * 22 ("Unsupported runtime"), and this project runs on Node 20, where the simulator's tests pass. The
 * simulator serves the dev start and the tests only, whose output must stay quiet; any other warning
 * passes through.
 */
import type Provider from "oidc-provider";

const runtimeNotice = "oidc-provider WARNING: Unsupported runtime";

export async function loadProvider(): Promise<typeof Provider> {
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (!String(args[0]).startsWith(runtimeNotice)) warn(...args);
  };
  try {
    return (await import("oidc-provider")).default;
  } finally {
    console.warn = warn;
  }
}
