/**
 * Helpers for two-factor tests: a service clock aligned on TOTP steps, and a user enrolled in
 * two-factor through the real HTTP API.
 */
import { RestClient, registerUser } from "./app.js";
import { testClock } from "./clock.js";
import { totpAt } from "./totp.js";

export type TestClock = ReturnType<typeof testClock>;

/** A frozen service clock started 5 s into a 30-second TOTP step, so codes never straddle two steps by accident. */
export function totpClock(): TestClock {
  return testClock(Math.floor(Date.now() / 30_000) * 30_000 + 5_000);
}

/** One TOTP time step, in seconds. */
export const step = 30;

export interface EnrolledUser {
  id: string;
  email: string;
  password: string;
  accessToken: string;
  secret: string;
  recoveryCodes: string[];
  client: RestClient;
}

/** Registers a user and turns two-factor on (the verify code is the current step's). */
export async function enrolledUser(url: string, clock: TestClock, tenantId = "default"): Promise<EnrolledUser> {
  const client = new RestClient(url, tenantId);
  const user = await registerUser(client);
  const setup = await client.post("/api/v1/auth/otp/setup", undefined, user.accessToken);
  if (setup.status !== 200) throw new Error(`otp/setup failed: ${setup.status} ${JSON.stringify(setup.body)}`);
  const secret = setup.body.data.secret as string;
  const verify = await client.post("/api/v1/auth/otp/verify", { code: totpAt(secret, clock.now()) }, user.accessToken);
  if (verify.status !== 200) throw new Error(`otp/verify failed: ${verify.status} ${JSON.stringify(verify.body)}`);
  return { ...user, secret, recoveryCodes: verify.body.data.recovery_codes, client };
}

/** Step 1 of a two-factor login; returns the otp_token. */
export async function otpToken(url: string, user: { email: string; password: string }, tenantId = "default"): Promise<string> {
  const login = await new RestClient(url, tenantId).post("/api/v1/auth/login", { email: user.email, password: user.password });
  if (login.status !== 200 || login.body.data.requires_otp !== true) throw new Error(`login failed: ${login.status} ${JSON.stringify(login.body)}`);
  return login.body.data.otp_token as string;
}
