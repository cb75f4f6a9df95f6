/**
 * A shop's browser app on the installed @mteja/client tarball: apps/api/test/client-package.test.ts
 * type-checks it in a strict browser-only project (DOM and ES2022 libraries, no Node types, every
 * declaration checked), as a Vite or Next.js front end would.
 */
import { createMtejaClient, isMtejaError, type RouterOutputs } from "@mteja/client";

const mteja = createMtejaClient({ baseUrl: window.location.origin, tenantId: "duka" });

export async function showAccount(element: HTMLElement): Promise<void> {
  try {
    const me: RouterOutputs["profile"]["me"]["data"] = (await mteja.api.profile.me.query()).data;
    element.textContent = me.name ?? me.email ?? me.id;
  } catch (error) {
    element.textContent = isMtejaError(error, "INVALID_TOKEN") ? "Sign in" : "Try again";
  }
}
