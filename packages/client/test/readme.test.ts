/** The README's example compiles against the real router (typecheck), and the client builds without a network call. */
import { expect, it } from "vitest";
import { createMtejaClient, isMtejaError } from "../src/index.js";

async function readmeExample() {
  const mteja = createMtejaClient({ baseUrl: "https://accounts.example.co.ke", tenantId: "duka" });

  await mteja.api.auth.login.mutate({ email: "wanjiku@example.com", password: "correct horse battery" });
  const { data: me } = await mteja.api.profile.me.query();
  const { data } = await mteja.api.payments.stkPush.mutate({ phone: "0712345678", amount: 100 });
  if (data.checkoutRequestId) {
    mteja.api.payments.onStatus.subscribe(
      { checkoutRequestId: data.checkoutRequestId },
      {
        onData: (update) => console.log(update.status),
      },
    );
  }
  await mteja.logout();
  return me.email;
}

/** The repository README's five lines (the shop's app after installing the tarball). */
async function rootReadmeExample(showSignIn: () => void) {
  const mteja = createMtejaClient({ baseUrl: "https://accounts.example.co.ke", tenantId: "duka" });
  await mteja.api.auth.login.mutate({ email: "wanjiku@example.com", password: "correct horse battery" });
  const { data } = await mteja.api.payments.stkPush.mutate({ phone: "0712345678", intent_id: "pi_…" });
  mteja.onAuthStateChange((event) => event === "SIGNED_OUT" && showSignIn()); // errors: isMtejaError(e, "INVALID_OTP")
  return [data.status, isMtejaError(new Error("x"), "INVALID_OTP")] as const;
}

/** The README's step-up example. */
async function stepUpExample(askForPassword: () => Promise<string | null>) {
  const mteja = createMtejaClient({ baseUrl: "https://accounts.example.co.ke", tenantId: "duka" });
  const { data } = await mteja.withStepUp(
    () => mteja.api.dataRights.exportMyData.query(),
    async () => {
      const password = await askForPassword();
      return password ? { password } : null;
    },
  );
  return data.profile.id;
}

it("creates a client lazily: nothing is sent until a call is made", () => {
  let calls = 0;
  const client = createMtejaClient({ baseUrl: "http://127.0.0.1:9/", tenantId: "duka", fetch: async () => (calls++, new Response()) });
  expect(client.getAccessToken()).toBeNull();
  expect(typeof readmeExample).toBe("function");
  expect(typeof rootReadmeExample).toBe("function");
  expect(typeof stepUpExample).toBe("function");
  expect(calls).toBe(0);
});
