/** What every screen gets from main.ts: the client, the signed-in customer and the ways to change screen. */
import type { MtejaClient } from "@mteja/client";

type Api = MtejaClient["api"];
export type Me = Awaited<ReturnType<Api["profile"]["me"]["query"]>>["data"];

export const screenNames = ["account", "two-factor", "addresses", "checkout", "devices", "my-data"] as const;
export type ScreenName = (typeof screenNames)[number];

/** What the return from Sign in with Google said, if this load is one (google.ts). */
export interface GoogleReturn {
  error?: string;
  otpToken?: string;
}

export interface Shell {
  mteja: MtejaClient;
  /** The shop whose customers these are (X-Tenant-ID). */
  tenantId: string;
  /** The signed-in customer, or null. */
  user: Me | null;
  /** Reads the customer again (after sign-in, verification or a two-factor change) and redraws, showing `message` on top. */
  reload(message?: string): Promise<void>;
  /** Forgets the customer and shows the sign-in screen. */
  signedOut(): void;
  go(screen: ScreenName): void;
  /** This load is the return from Sign in with Google with an error or a two-factor step (read once). */
  googleReturn?: GoogleReturn | undefined;
}

/** A screen draws itself into an element; `signal` aborts when it is replaced (to end subscriptions). */
export type Screen = (shell: Shell, signal: AbortSignal) => HTMLElement;
