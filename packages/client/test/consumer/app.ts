/**
 * A shop's small Node app on the installed @mteja/client tarball (apps/api/test/client-package.test.ts
 * type-checks it with `tsc --strict` outside the workspace and runs it): register → me → an address
 * → an STK prompt, printing what it saw as one JSON line.
 */
import { callOptions, createMtejaClient, isMtejaError, type AuthStateEvent, type MtejaErrorCode, type RouterInputs, type RouterOutputs } from "@mteja/client";

const [baseUrl = "", tenantId = "default", email = ""] = process.argv.slice(2);
const events: AuthStateEvent[] = [];
const mteja = createMtejaClient({ baseUrl, tenantId });
mteja.onAuthStateChange((event) => events.push(event));

const account: RouterInputs["auth"]["register"] = { name: "Achieng Otieno", email, password: "a long passphrase 2026" };
await mteja.api.auth.register.mutate(account);

const me: RouterOutputs["profile"]["me"]["data"] = (await mteja.api.profile.me.query()).data;

const address: RouterInputs["addresses"]["create"] = {
  label: "Home",
  recipient_name: me.name,
  phone: "0712345678",
  street: "Moi Avenue 12",
  county: "nairobi",
};
const created = (await mteja.api.addresses.create.mutate(address)).data;

// A double-tapped "Pay": the same Idempotency-Key answers the first prompt again.
const pay = { phone: "0712345678", amount: 100 } satisfies RouterInputs["payments"]["stkPush"];
const first = (await mteja.api.payments.stkPush.mutate(pay, callOptions({ idempotencyKey: `pay-${me.id}` }))).data;
const again = (await mteja.api.payments.stkPush.mutate(pay, callOptions({ idempotencyKey: `pay-${me.id}` }))).data;

let refused: MtejaErrorCode | undefined;
try {
  await mteja.api.auth.login.mutate({ email, password: "not the passphrase" });
} catch (error) {
  if (isMtejaError(error, "INVALID_CREDENTIALS", "RATE_LIMITED")) refused = error.shape.error.code;
  else throw error;
}

await mteja.logout();
console.log(JSON.stringify({ me: { id: me.id, email: me.email }, addressCounty: created.address.county, first, again, refused, events }));
