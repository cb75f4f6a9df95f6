/** The README's example compiles against the real router (typecheck), and the client builds without a network call. */
import { expect, it } from "vitest";
import { createMtejaClient } from "../src/index.js";

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

it("creates a client lazily: nothing is sent until a call is made", () => {
  let calls = 0;
  const client = createMtejaClient({ baseUrl: "http://127.0.0.1:9/", tenantId: "duka", fetch: async () => (calls++, new Response()) });
  expect(client.getAccessToken()).toBeNull();
  expect(typeof readmeExample).toBe("function");
  expect(calls).toBe(0);
});
